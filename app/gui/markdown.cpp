// [SECTION] index: entities / builder state / md4c callbacks / parse
#include "gui/markdown.h"

#include <md4c.h>

#include <cstdlib>
#include <deque>

namespace kl::gui::md {

namespace {

// [SECTION] Entities

void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x110000) {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

// The common named entities and every numeric one; anything else is kept as written.
std::string decode_entity(const std::string& e) {
    if (e.size() > 3 && e[1] == '#') {
        bool hex = e[2] == 'x' || e[2] == 'X';
        unsigned long cp = std::strtoul(e.c_str() + (hex ? 3 : 2), nullptr, hex ? 16 : 10);
        if (cp == 0 || cp > 0x10FFFF) return "\xEF\xBF\xBD";
        std::string out;
        append_utf8(out, unsigned(cp));
        return out;
    }
    static const std::pair<const char*, const char*> named[] = {
        {"&amp;", "&"},
        {"&lt;", "<"},
        {"&gt;", ">"},
        {"&quot;", "\""},
        {"&apos;", "'"},
        {"&nbsp;", "\xC2\xA0"},
        {"&times;", "\xC3\x97"},
        {"&middot;", "\xC2\xB7"},
        {"&mdash;", "\xE2\x80\x94"},
        {"&ndash;", "\xE2\x80\x93"},
        {"&hellip;", "\xE2\x80\xA6"},
        {"&le;", "\xE2\x89\xA4"},
        {"&ge;", "\xE2\x89\xA5"},
        {"&rarr;", "\xE2\x86\x92"},
        {"&approx;", "\xE2\x89\x88"},
    };
    for (const auto& [name, text] : named)
        if (e == name) return text;
    return e;
}

// [SECTION] Builder state

struct Builder {
    // A deque: `target` points into its blocks, and pushing must not move them.
    std::deque<Block> blocks;
    // Open containers.
    int quote_depth = 0;
    struct List {
        bool ordered;
        unsigned next;
    };
    std::vector<List> lists;
    bool item_open = false;      // an LI whose first paragraph has not been placed yet
    std::string pending_marker;  // the marker waiting for that paragraph
    // Where inline text goes right now.
    Inline* target = nullptr;
    std::string* code_target = nullptr;
    std::vector<unsigned> styles;  // span style stack
    std::vector<std::string> links;
    bool in_table = false;

    unsigned style() const {
        unsigned s = kPlain;
        for (unsigned x : styles) s |= x;
        return s;
    }

    Block& open_block(Block::Kind kind) {
        blocks.emplace_back();
        Block& b = blocks.back();
        b.kind = kind;
        b.quote_depth = quote_depth;
        b.level = int(lists.size());
        return b;
    }

    // Paragraph text inside a list item: the item's first paragraph carries the marker; later
    // ones continue at its indent.
    Block& open_text_block() {
        if (!lists.empty()) {
            Block& b = open_block(Block::Kind::ListItem);
            if (item_open) {
                b.marker = pending_marker;
                item_open = false;
            }
            return b;
        }
        return open_block(Block::Kind::Paragraph);
    }

    void add_text(const std::string& text, unsigned extra = 0) {
        if (code_target) {
            *code_target += text;
            return;
        }
        if (!target) {
            // Text outside any paragraph (a tight list item, raw HTML): give it a block.
            Block& b = open_text_block();
            target = &b.spans;
        }
        unsigned s = style() | extra;
        std::string url = (s & kLink) && !links.empty() ? links.back() : std::string();
        if (!target->empty() && target->back().style == s && target->back().url == url) {
            target->back().text += text;
        } else {
            target->push_back({text, s, url});
        }
    }
};

std::string attribute_text(const MD_ATTRIBUTE& a) {
    std::string out;
    if (!a.text) return out;
    if (!a.substr_offsets) return std::string(a.text, a.size);
    for (int i = 0; a.substr_offsets[i] < a.size; ++i) {
        std::string part(a.text + a.substr_offsets[i], a.substr_offsets[i + 1] - a.substr_offsets[i]);
        out += a.substr_types[i] == MD_TEXT_ENTITY ? decode_entity(part) : part;
    }
    return out;
}

// [SECTION] md4c callbacks

int enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
        case MD_BLOCK_DOC: break;
        case MD_BLOCK_QUOTE: ++b.quote_depth; break;
        case MD_BLOCK_UL: b.lists.push_back({false, 0}); break;
        case MD_BLOCK_OL: b.lists.push_back({true, static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start}); break;
        case MD_BLOCK_LI: {
            Builder::List& l = b.lists.back();
            if (l.ordered) {
                b.pending_marker = std::to_string(l.next++) + ".";
            } else {
                b.pending_marker = b.lists.size() == 1 ? "\xE2\x80\xA2" : "\xE2\x97\xA6";  // • ◦
            }
            auto* li = static_cast<MD_BLOCK_LI_DETAIL*>(detail);
            if (li && li->is_task) b.pending_marker = (li->task_mark == ' ') ? "\xE2\x98\x90" : "\xE2\x98\x91";  // ☐ ☑
            b.item_open = true;
            b.target = nullptr;
            break;
        }
        case MD_BLOCK_HR: b.open_block(Block::Kind::Rule); break;
        case MD_BLOCK_H: {
            Block& h = b.open_block(Block::Kind::Heading);
            h.level = int(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level);
            b.target = &h.spans;
            break;
        }
        case MD_BLOCK_CODE: {
            Block& c = b.open_block(Block::Kind::CodeBlock);
            c.language = attribute_text(static_cast<MD_BLOCK_CODE_DETAIL*>(detail)->lang);
            b.code_target = &c.code;
            break;
        }
        case MD_BLOCK_HTML: {
            // Raw HTML is shown as the text it is.
            Block& p = b.open_text_block();
            b.target = &p.spans;
            break;
        }
        case MD_BLOCK_P: {
            if (b.in_table) break;
            Block& p = b.open_text_block();
            b.target = &p.spans;
            break;
        }
        case MD_BLOCK_TABLE: {
            b.open_block(Block::Kind::Table);
            b.in_table = true;
            break;
        }
        case MD_BLOCK_THEAD:
        case MD_BLOCK_TBODY: break;
        case MD_BLOCK_TR: b.blocks.back().rows.emplace_back(); break;
        case MD_BLOCK_TH:
        case MD_BLOCK_TD: {
            Block& t = b.blocks.back();
            t.rows.back().emplace_back();
            size_t column = t.rows.back().size() - 1;
            if (t.rows.size() == 1) {
                MD_ALIGN a = static_cast<MD_BLOCK_TD_DETAIL*>(detail)->align;
                t.align.push_back(a == MD_ALIGN_CENTER ? 1 : a == MD_ALIGN_RIGHT ? 2 : 0);
            }
            (void)column;
            b.target = &t.rows.back().back();
            break;
        }
    }
    return 0;
}

int leave_block(MD_BLOCKTYPE type, void*, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
        case MD_BLOCK_QUOTE: --b.quote_depth; break;
        case MD_BLOCK_UL:
        case MD_BLOCK_OL:
            b.lists.pop_back();
            b.target = nullptr;
            break;
        case MD_BLOCK_LI:
            // An empty item still shows its marker.
            if (b.item_open) {
                Block& e = b.open_text_block();
                (void)e;
            }
            b.item_open = false;
            b.target = nullptr;
            break;
        case MD_BLOCK_CODE: {
            std::string& code = b.blocks.back().code;
            while (!code.empty() && code.back() == '\n') code.pop_back();
            b.code_target = nullptr;
            break;
        }
        case MD_BLOCK_TABLE:
            b.in_table = false;
            b.target = nullptr;
            break;
        case MD_BLOCK_TH:
        case MD_BLOCK_TD: b.target = nullptr; break;
        case MD_BLOCK_HTML:
            // Raw HTML arrives line by line with its newlines: drop the trailing ones.
            if (b.target) {
                while (!b.target->empty() && b.target->back().text.find_last_not_of(" \n") == std::string::npos)
                    b.target->pop_back();
                if (!b.target->empty()) {
                    std::string& t = b.target->back().text;
                    t.erase(t.find_last_not_of(" \n") + 1);
                }
            }
            b.target = nullptr;
            break;
        case MD_BLOCK_H:
        case MD_BLOCK_P:
            if (!b.in_table) b.target = nullptr;
            break;
        default: break;
    }
    return 0;
}

int enter_span(MD_SPANTYPE type, void* detail, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
        case MD_SPAN_EM: b.styles.push_back(kEmphasis); break;
        case MD_SPAN_STRONG: b.styles.push_back(kStrong); break;
        case MD_SPAN_CODE: b.styles.push_back(kCode); break;
        case MD_SPAN_DEL: b.styles.push_back(kStrike); break;
        case MD_SPAN_A:
            b.links.push_back(attribute_text(static_cast<MD_SPAN_A_DETAIL*>(detail)->href));
            b.styles.push_back(kLink);
            break;
        case MD_SPAN_IMG:
            // Images are not shown: their alternative text is, marked as such.
            b.add_text("[image: ");
            b.styles.push_back(kPlain);
            break;
        default: b.styles.push_back(kPlain); break;  // math, wiki links, underline: plain text
    }
    return 0;
}

int leave_span(MD_SPANTYPE type, void*, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    if (!b.styles.empty()) b.styles.pop_back();
    if (type == MD_SPAN_A && !b.links.empty()) b.links.pop_back();
    if (type == MD_SPAN_IMG) b.add_text("]");
    return 0;
}

int text(MD_TEXTTYPE type, const MD_CHAR* data, MD_SIZE size, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    std::string t(data, size);
    switch (type) {
        case MD_TEXT_NULLCHAR: b.add_text("\xEF\xBF\xBD"); break;
        case MD_TEXT_BR: b.add_text("\n"); break;
        case MD_TEXT_SOFTBR: b.add_text(" "); break;
        case MD_TEXT_ENTITY: b.add_text(decode_entity(t)); break;
        case MD_TEXT_HTML: {
            // Inline HTML: drop tags people use for layout, keep anything else readable.
            if (t.rfind("<!--", 0) == 0) break;  // comments are for authors
            if (t == "<br>" || t == "<br/>" || t == "<br />")
                b.add_text("\n");
            else if (!t.empty() && t.front() == '<' && t.back() == '>' && t.find(' ') == std::string::npos)
                break;
            else
                b.add_text(t);
            break;
        }
        default: b.add_text(t); break;
    }
    return 0;
}

}  // namespace

// [SECTION] Parse

Document parse(const std::string& markdown) {
    Builder b;
    MD_PARSER parser{};
    parser.abi_version = 0;
    parser.flags = MD_DIALECT_GITHUB | MD_FLAG_NOINDENTEDCODEBLOCKS;
    parser.enter_block = enter_block;
    parser.leave_block = leave_block;
    parser.enter_span = enter_span;
    parser.leave_span = leave_span;
    parser.text = text;
    int rc = md_parse(markdown.data(), MD_SIZE(markdown.size()), &parser, &b);
    if (rc != 0) {
        Document d;
        d.error = "the Markdown parser failed (code " + std::to_string(rc) + "); showing the text as written";
        Block p;
        p.spans.push_back({markdown, kPlain, ""});
        d.blocks.push_back(p);
        return d;
    }
    // Drop paragraphs that ended up empty (e.g. an HTML comment block).
    Document doc;
    for (auto& blk : b.blocks) {
        bool empty_text = (blk.kind == Block::Kind::Paragraph) &&
                          plain_text(blk.spans).find_first_not_of(" \n\t") == std::string::npos;
        if (!empty_text) doc.blocks.push_back(std::move(blk));
    }
    return doc;
}

std::string plain_text(const Inline& spans) {
    std::string s;
    for (const auto& sp : spans) s += sp.text;
    return s;
}

}  // namespace kl::gui::md
