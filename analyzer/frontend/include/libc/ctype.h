/* cudalint fallback <ctype.h> (only when the system has none). */
#ifndef __CUDALINT_FALLBACK_CTYPE_H
#define __CUDALINT_FALLBACK_CTYPE_H
#ifdef __cplusplus
extern "C" {
#endif
int isalnum(int c); int isalpha(int c); int isblank(int c); int iscntrl(int c); int isdigit(int c);
int isgraph(int c); int islower(int c); int isprint(int c); int ispunct(int c); int isspace(int c);
int isupper(int c); int isxdigit(int c); int tolower(int c); int toupper(int c);
#ifdef __cplusplus
}
#endif
#endif
