/* The version of ibsmd and its tools.  Its one source is the file VERSION
 * at the top of the tree: configure.ac's AC_INIT reads it, the Makefile
 * compiles it into lib/version.c, and debian/changelog's newest entry
 * must carry it too (tests/integration/version_agrees.sh). */
#ifndef IBSM_VERSION_H
#define IBSM_VERSION_H

extern const char ibsm_version[];

#endif
