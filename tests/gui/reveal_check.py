"""reveal_check.py REPORT.json...: fails (exit 1, one LEAK line each) when a ladder strip card or
the plot of a step, as the window's report gives them, shows a figure that the step's prediction
or a later step's still asks for (the report's reveal.waiting). A figure counts as shown when a
number the card printed, in the same unit, is the asked figure rounded to the digits printed; the
plot's values are compared exactly (they are the runs' own numbers)."""
import json
import re
import sys

UNITS = {"TFLOP/s": ("tflops", 1.0), "GB/s": ("gbps", 1.0), "ms": ("ms", 1.0), "\u00b5s": ("ms", 1000.0)}
NUMBER = re.compile(r"(\d[\d,]*(?:\.\d+)?) ?(TFLOP/s|GB/s|ms|\u00b5s)")


def digits(shown):
    """Significant digits and decimals of a printed number ("2,327" -> 4, 0; "0.498" -> 3, 3)."""
    plain = shown.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    return len(plain.replace(".", "").lstrip("0")), decimals


def printed_as(value, shown):
    """True when `value` printed with the shown number's decimals reads as `shown`."""
    _, decimals = digits(shown)
    return f"{value:.{decimals}f}" == shown.replace(",", "")


def leaks(report):
    state, reveal = report["state"], report["reveal"]
    where = f"step {state['step']} of {state['lesson']}"
    out = []
    for w in reveal["waiting"]:
        asked = w["figures"]
        for card in report["strip"]:
            for shown, unit in NUMBER.findall(card["text"]):
                metric, scale = UNITS[unit]
                if metric in asked and printed_as(asked[metric] * scale, shown):
                    out.append(f"LEAK {where}: card {card['rung']} prints {shown} {unit}, what step {w['step']} "
                               f"asks ({w['target']} {metric})")
        for v in reveal["plot_values"]:
            for metric, a in asked.items():
                if abs(v - a) <= 1e-9 * abs(a) or abs(v - a * 1000) <= 1e-9 * abs(a * 1000):
                    out.append(f"LEAK {where}: the plot draws {v}, what step {w['step']} asks ({w['target']} {metric})")
    return out


def main(paths):
    found, steps, waiting, plots = [], set(), 0, 0
    for p in paths:
        r = json.load(open(p))
        key = (r["state"]["lesson"], r["state"]["step"], len(r["reveal"]["waiting"]), r["reveal"]["plot_drawn"])
        if key in steps:
            continue  # the walk's Right past the last step
        steps.add(key)
        waiting += len(r["reveal"]["waiting"])
        plots += r["reveal"]["plot_drawn"]
        found += leaks(r)
    for line in found:
        print(line)
    print(f"reveal_check: {len(steps)} views, {plots} with a plot, {waiting} waiting predictions, {len(found)} leaks")
    if waiting == 0:
        print("FAIL: no step had a prediction waiting: the walk checked nothing")
        return 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
