#include "lib/version.h"

/* IBSM_VERSION comes from the file VERSION (Makefile). */
const char ibsm_version[] = IBSM_VERSION;
