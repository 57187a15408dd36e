/* libsmiopen.so: umad_open_smi_port() as rdma-core 53 and later export it,
 * for a test on Debian 12 (rdma-core 44 has no such function): preloaded,
 * it makes the symbol exist, records the call (CA and port, one line in
 * $SMIOPEN_FILE) and opens the port with the real umad_open_port(), which
 * is what rdma-core's does for a port that is not SM-disabled.  It shows
 * that ibsmd finds the function at run time and opens its port with it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int umad_open_smi_port(const char *ca_name, int portnum);

int umad_open_smi_port(const char *ca_name, int portnum)
{
	int (*open_port)(const char *, int) =
	    (int (*)(const char *, int))dlsym(RTLD_NEXT, "umad_open_port");
	const char *path = getenv("SMIOPEN_FILE");
	FILE *fp = path ? fopen(path, "a") : NULL;

	if (fp) {
		fprintf(fp, "%s %d\n", ca_name ? ca_name : "-", portnum);
		fclose(fp);
	}
	return open_port ? open_port(ca_name, portnum) : -1;
}
