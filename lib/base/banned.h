/* SPDX-License-Identifier: ISC */
/*
 * Calls that are easy to misuse are rejected at compile time: every
 * translation unit of ft includes this header last (base.h does it).
 */
#ifndef FT_BANNED_H
#define FT_BANNED_H

#define FT_BANNED(f)	sorry_##f##_is_banned_in_ft

#undef strcpy
#define strcpy(x, y)		FT_BANNED(strcpy)
#undef strcat
#define strcat(x, y)		FT_BANNED(strcat)
#undef sprintf
#define sprintf(...)		FT_BANNED(sprintf)
#undef strtok
#define strtok(x, y)		FT_BANNED(strtok)
#undef atoi
#define atoi(x)			FT_BANNED(atoi)
#undef alloca
#define alloca(x)		FT_BANNED(alloca)

#endif
