/* The stage's ELF image (stage/, built static by the Makefile) as bytes
 * of corral's read-only data, between corral_stage_start and
 * corral_stage_end; runtime/lifecycle/stage.c copies them into a memfd.  STAGE_BIN
 * is the image's path, given by the Makefile. */
	.section .rodata.corral_stage, "a"
	.balign 16
	.globl corral_stage_start
	.hidden corral_stage_start
corral_stage_start:
	.incbin STAGE_BIN
	.globl corral_stage_end
	.hidden corral_stage_end
corral_stage_end:
	.byte 0

	.section .note.GNU-stack, "", @progbits
