/* ibsmgen: topology generator (fat trees, pruned fat trees, tori,
 * dragonflies, random irregular networks) writing ibsim's net-file form,
 * plus `dump`, the canonical listing of any topology file, and
 * `ibsim-args`, the -N/-S/-P limits ibsim needs to load a file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/topo.h"
#include "tools/ibsmgen/gen.h"

static void usage(FILE *o)
{
	fputs("usage: ibsmgen COMMAND [options] [-o FILE]\n"
	      "  fattree2 --hosts N [--radix R] [--uplinks U]\n"
	      "                                       2-level fat tree (U < "
	      "R/2: pruned)\n"
	      "  fattree3 --k K                       3-level fat tree of "
	      "K-port switches (K^3/4 hosts)\n"
	      "  pruned --hosts N --radix R --uplinks U\n"
	      "                                       3-level pruned fat "
	      "tree, U leaf-to-top paths\n"
	      "  pruned3 --pods P --leaves L --hosts-per-leaf H --middles M\n"
	      "          --tops T --uplinks U         3-level pruned fat tree "
	      "with pods:\n"
	      "                                       L leaves per pod, M "
	      "middles per pod,\n"
	      "                                       U uplinks per middle to "
	      "T tops\n"
	      "  torus X Y Z [--hosts-per-switch H]   3-D torus\n"
	      "  dragonfly --a A --p P --h H          dragonfly (a switches "
	      "per group, p hosts, h global links each)\n"
	      "  random --switches N --ports P --hosts-per-switch H "
	      "[--seed S]\n"
	      "                                       connected irregular "
	      "network\n"
	      "  dump FILE                            canonical listing of a "
	      "topology file\n"
	      "  ibsim-args FILE                      ibsim -N/-S/-P options "
	      "FILE needs\n"
	      "                                       (and -L 49152 past "
	      "30,719 LIDs)\n"
	      "Generators write ibsim's net-file form to stdout (or -o FILE);"
	      "\nthe first node is a host, where ibsim attaches the SM.\n"
	      "Hosts are H1..Hn (one port each), switches S1..Sm, numbered in "
	      "topology\norder.  fattree2 picks the smallest radix that fits "
	      "when none is given.\npruned: every leaf has U shortest paths to "
	      "every top switch; the papers'\nmachines are --hosts 8704 "
	      "--radix 64 --uplinks 8 and --hosts 40960 --radix 64\n"
	      "--uplinks 2.  pruned3: every leaf links to each middle of its "
	      "pod,\n"
	      "middle j's uplinks go round robin from top j*U, so a leaf has "
	      "M*U/T paths\nto every top (M*U >= T).  random is connected and "
	      "the same for the same "
	      "--seed.\n"
	      "Add --ibsim-args to a generator to print only the ibsim "
	      "options.\n",
	      o);
}

static int cmd_dump(int argc, char **argv)
{
	struct fabric f;
	char err[512];

	if (argc != 2) {
		fputs("usage: ibsmgen dump FILE\n", stderr);
		return 2;
	}
	fabric_init(&f);
	if (topo_load(&f, argv[1], err, sizeof(err)) < 0) {
		fprintf(stderr, "ibsmgen: %s\n", err);
		return 1;
	}
	topo_dump(&f, stdout);
	fabric_free(&f);
	return 0;
}

static int cmd_ibsim_args(int argc, char **argv)
{
	struct fabric f;
	char err[512];

	if (argc != 2) {
		fputs("usage: ibsmgen ibsim-args FILE\n", stderr);
		return 2;
	}
	fabric_init(&f);
	if (topo_load(&f, argv[1], err, sizeof(err)) < 0) {
		fprintf(stderr, "ibsmgen: %s\n", err);
		return 1;
	}
	gen_print_ibsim_args(&f, stdout);
	fabric_free(&f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "dump") || !strcmp(argv[1], "check"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ibsim-args"))
		return cmd_ibsim_args(argc - 1, argv + 1);
	return gen_main(argc - 1, argv + 1);
}
