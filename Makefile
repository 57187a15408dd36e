# ibsmd — non-recursive Makefile.
# Sources are found by directory: lib/ mad/ routing/ daemon/ each become a
# static archive; every directory under tools/ is one program; every
# tests/unit/test_*.c is one test binary.  Archives let each test link only
# the objects it really uses.
#
#   make               build everything into $(O) (default build/)
#   make SAN=1 O=build-san   debug build with ASan/UBSan
#   make check         unit + integration tests (needs ibsim, see README)
#   make progs         only the programs (what make install needs)
#   make install DESTDIR=... PREFIX=/usr

-include config.mk

O        ?= build
PREFIX   ?= /usr/local
SBINDIR  ?= $(PREFIX)/sbin
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UNITDIR  ?= /lib/systemd/system
CC       ?= cc
PKG_CONFIG ?= pkg-config

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags libibumad libsystemd yaml-0.1 libmicrohttpd 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs libibumad libsystemd yaml-0.1 libmicrohttpd 2>/dev/null)

WARN     := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wformat=2 \
            -Wmissing-prototypes -Wstrict-prototypes
CSTD     := -std=gnu11
OPT      ?= -O2 -g
ifeq ($(SAN),1)
OPT      := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
            -fno-sanitize-recover=undefined
LDSAN    := -fsanitize=address,undefined
endif
ALL_CFLAGS := $(CSTD) $(OPT) $(WARN) -I. -D_GNU_SOURCE -pthread $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(LDSAN) -pthread $(LDFLAGS)
LIBS     := $(PKG_LIBS) -lm

# The tree's one version (lib/version.h): configure.ac reads the same file.
IBSM_VERSION := $(shell cat VERSION 2>/dev/null)
$(if $(IBSM_VERSION),,$(error the file VERSION is missing or empty))

LIB_SRC     := $(wildcard lib/*.c)
MAD_SRC     := $(wildcard mad/*.c)
ROUTING_SRC := $(wildcard routing/*.c routing/*/*.c)
DAEMON_SRC  := $(filter-out daemon/main.c,$(wildcard daemon/*.c daemon/*/*.c))
TOOLS       := $(patsubst tools/%/,%,$(sort $(dir $(wildcard tools/*/*.c))))
UNIT_SRC    := $(wildcard tests/unit/test_*.c)
# Programs that integration tests run under ibsim (not unit tests).
SIM_SRC     := $(wildcard tests/sim/*.c)

obj = $(patsubst %.c,$(O)/%.o,$(1))

LIB_A     := $(O)/libibsm.a
MAD_A     := $(O)/libibsmmad.a
ROUTING_A := $(O)/libibsmrouting.a
DAEMON_A  := $(O)/libibsmdaemon.a
ARCHIVES  := $(DAEMON_A) $(ROUTING_A) $(MAD_A) $(LIB_A)

PROGS := $(if $(wildcard daemon/main.c),$(O)/ibsmd) $(foreach t,$(TOOLS),$(O)/$(t))
UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/tests/unit/%,$(UNIT_SRC))
SIM_BINS  := $(patsubst tests/sim/%.c,$(O)/tests/sim/%,$(SIM_SRC))
# Preload libraries the integration tests put beside libumad2sim.so.
TAP_LIBS  := $(O)/tests/tap/libmadtap.so $(O)/tests/tap/libsmiopen.so \
             $(O)/tests/tap/libsmbusy.so

.PHONY: all progs check unit integration install clean format
all: $(PROGS) $(UNIT_BINS) $(SIM_BINS) $(TAP_LIBS)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB_A): $(call obj,$(LIB_SRC))
$(MAD_A): $(call obj,$(MAD_SRC))
$(ROUTING_A): $(call obj,$(ROUTING_SRC))
$(DAEMON_A): $(call obj,$(DAEMON_SRC))
$(ARCHIVES):
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(O)/lib/version.o: ALL_CFLAGS += -DIBSM_VERSION='"$(IBSM_VERSION)"'
$(O)/lib/version.o: VERSION

$(O)/ibsmd: $(call obj,daemon/main.c) $(ARCHIVES)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(ARCHIVES) $(LIBS)

define tool_rule
$(O)/$(1): $(call obj,$(wildcard tools/$(1)/*.c)) $(ARCHIVES)
	$$(CC) $$(ALL_LDFLAGS) -o $$@ $(call obj,$(wildcard tools/$(1)/*.c)) $(ARCHIVES) $$(LIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

# Unit tests that check our codecs against libibmad's field tables; no
# program of ours links libibmad.
IBMAD_TESTS := test_mad_smp test_sa_codec test_speed test_mad_perf
# Unit tests that check our layouts against OpenSM's iba/ib_types.h.
$(O)/tests/unit/test_sa_inform_layout.o: ALL_CFLAGS += -isystem /usr/include/infiniband
$(O)/tests/unit/%: $(O)/tests/unit/%.o $(ARCHIVES)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(ARCHIVES) $(LIBS) -lcmocka \
	  $(if $(filter $(notdir $@),$(IBMAD_TESTS)),-libmad)

$(O)/tests/sim/%: $(O)/tests/sim/%.o $(ARCHIVES)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(ARCHIVES) $(LIBS)

# Not instrumented even with SAN=1: the sanitizer runtime comes with the
# program it is preloaded into.
$(O)/tests/tap/lib%.so: tests/tap/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) -O2 -g $(WARN) -I. -D_GNU_SOURCE -fPIC -shared -o $@ $< \
	  $(PKG_CFLAGS) -ldl -lpthread

unit: $(UNIT_BINS)
	@tests/run-unit $(O) $(UNIT_BINS)

integration: $(PROGS) $(SIM_BINS) $(TAP_LIBS)
	@tests/run-integration $(O)

check: all
	@tests/run-all $(O)

# The administrator's programs go to sbin, where infiniband-diags and
# OpenSM put theirs; the offline tools to bin.  The unit and the
# configuration are installed from systemd/ and conf/ only, also by the
# Debian package (debian/rules runs this target).
SBIN_PROGS := ibsmd ibsmctl
progs: $(PROGS)

install: progs
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 \
	  $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(SYSCONFDIR)/ibsmd \
	  $(DESTDIR)$(UNITDIR)
	for p in $(SBIN_PROGS); do install -m 755 $(O)/$$p $(DESTDIR)$(SBINDIR)/$$p; done
	for t in $(filter-out $(SBIN_PROGS),$(TOOLS)); do \
	  install -m 755 $(O)/$$t $(DESTDIR)$(BINDIR)/$$t; done
	for m in man/*.8; do [ -f $$m ] && install -m 644 $$m $(DESTDIR)$(MANDIR)/man8/; done; true
	for m in man/*.5; do [ -f $$m ] && install -m 644 $$m $(DESTDIR)$(MANDIR)/man5/; done; true
	for m in man/*.1; do [ -f $$m ] && install -m 644 $$m $(DESTDIR)$(MANDIR)/man1/; done; true
	[ -f $(DESTDIR)$(SYSCONFDIR)/ibsmd/ibsmd.yaml ] || \
	  install -m 644 conf/ibsmd.yaml $(DESTDIR)$(SYSCONFDIR)/ibsmd/ibsmd.yaml
	install -m 644 systemd/ibsmd.service $(DESTDIR)$(UNITDIR)/ibsmd.service

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(O)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
