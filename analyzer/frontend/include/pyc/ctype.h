/* cudalint (pycparser frontend): minimal <ctype.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_CTYPE_H
#define __CUDALINT_PYC_CTYPE_H
int isalpha(int c); int isdigit(int c); int isspace(int c); int isalnum(int c);
int isupper(int c); int islower(int c); int toupper(int c); int tolower(int c);
#endif
