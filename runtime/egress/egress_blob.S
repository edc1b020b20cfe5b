/* The egress connections' program's ELF image (egress/, built static by
 * the Makefile) as bytes of corral's read-only data, between
 * corral_egress_conn_start and corral_egress_conn_end; the egress helper
 * copies them into a memfd (runtime/egress/egress_helper.c).  EGRESS_CONN_BIN is
 * the image's path, given by the Makefile. */
	.section .rodata.corral_egress_conn, "a"
	.balign 16
	.globl corral_egress_conn_start
	.hidden corral_egress_conn_start
corral_egress_conn_start:
	.incbin EGRESS_CONN_BIN
	.globl corral_egress_conn_end
	.hidden corral_egress_conn_end
corral_egress_conn_end:
	.byte 0

	.section .note.GNU-stack, "", @progbits
