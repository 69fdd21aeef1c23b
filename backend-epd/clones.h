/* SPDX-License-Identifier: MIT */
/*
 * Hot loops are written for GCC's auto-vectorizer. x86-64 guarantees only
 * SSE2; where the CPU has AVX2, a second copy of the loop compiled for it
 * (chosen once, at load time) has twice the lanes and the multiplies and
 * packs SSE2 lacks.
 */
#ifndef VL_EPD_CLONES_H
#define VL_EPD_CLONES_H

/* VL_EPD_NO_CLONES builds the portable loop alone, to test it where AVX2 is. */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(VL_EPD_NO_CLONES)
#if __has_attribute(target_clones)
#define VL_EPD_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef VL_EPD_VECTOR_CLONES
#define VL_EPD_VECTOR_CLONES
#endif

#endif
