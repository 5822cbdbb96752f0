extern "C" __global__ void k(){
	int x = 	1 + zz;
}
