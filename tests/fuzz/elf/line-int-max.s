# line-int-max.s - code whose line table has lines near 2^31: --list looped to INT_MAX (elf/BUILD).
	.file 1 "line-int-max.c"
	.text
	.skip 0x64, 0x90
	.globl _start
	.type _start,@function
_start:
	.loc 1 2147483000
	nop
	.loc 1 2147483647
	nop
	.loc 1 2000000000
	nop
	.loc 1 5
	ret
	.size _start, .-_start
	.globl other
	.type other,@function
other:
	.loc 1 1999999990
	nop
	.loc 1 2000000001
	ret
	.size other, .-other
