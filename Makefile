# Makefile for pprof.  `make` builds ./pprof; `make check` installs what is
# missing, builds and runs every test; `make demo` analyzes a bundled example.
# SANITIZE=1 builds with AddressSanitizer and UndefinedBehaviorSanitizer.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1

PKGS = libdw libelf libpcre2-8 zlib libprotobuf-c libdeflate
# Compiled against, but opened when first needed (include/dynlib.h): not linked.
DLOPEN_PKGS = libcurl libmicrohttpd capstone libcgraph libgvc libedit
PKG_CONFIG ?= pkg-config

CC ?= cc
CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Wshadow -Wno-sign-compare -Wno-unused-parameter -Wno-missing-field-initializers
CPPFLAGS += -D_GNU_SOURCE -Iinclude
ALL_CFLAGS = -std=gnu11 -pthread $(WARN) $(CFLAGS)
# Each compile also writes TARGET.d, the headers TARGET was built from.
DEPFLAGS = -MMD -MP
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) $(DLOPEN_PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
# libiberty (binutils' demangler) ships no pkg-config file.
LIBS = $(PKG_LIBS) -liberty -ldl -lpthread -lm
# The unit tests read the graphs pprof makes with libcgraph's own calls.
TEST_LIBS := $(shell $(PKG_CONFIG) --libs libcgraph 2>/dev/null)

ifeq ($(SANITIZE),1)
BUILD = build/san
ALL_CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else ifeq ($(FUZZ),1)
# The fuzzing build (make fuzz): clang, libFuzzer's coverage, the sanitizers.
FUZZ_CC ?= clang
override CC := $(FUZZ_CC)
BUILD = build/fuzz
ALL_CFLAGS += -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=fuzzer,address,undefined
else
BUILD = build/opt
# Link-time optimization of pprof itself, where the compiler and linker
# have it (make clean, then make LTO=, builds without): the hot calls
# cross files (a reader's into the model's indexes, the report's into its
# helpers).  The objects keep their machine code as well (fat objects,
# which clang 14 ignores with a warning: the test fails on it), so the
# unit tests and harnesses link them without it.
ifeq ($(origin LTO),undefined)
LTO := $(shell printf 'int main(void) { return 0; }\n' | $(CC) -Werror -flto=auto -ffat-lto-objects -x c -o /dev/null - 2>/dev/null && echo -flto=auto)
endif
endif
# The objects' flags with it, and the links that go without.
LTO_OBJECTS = $(if $(LTO),$(LTO) -ffat-lto-objects)
NO_LTO = $(if $(LTO),-fno-lto)

SRCS := $(wildcard src/*.c src/*/*.c)
# profile.proto's C code is generated at build time by protoc-c.
PROTO_GEN = $(BUILD)/gen/profile.pb-c
OBJS := $(SRCS:%.c=$(BUILD)/%.o) $(PROTO_GEN).o
LIB_OBJS := $(filter-out $(BUILD)/src/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# Fuzzing harnesses, one per file (tests/fuzz/README): linked to libFuzzer
# in the fuzzing build, else to the replay driver the test suite runs.
FUZZ_SRCS := $(filter-out tests/fuzz/fuzz.c tests/fuzz/replay.c,$(wildcard tests/fuzz/*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_DRIVER := $(if $(filter 1,$(FUZZ)),,$(BUILD)/tests/fuzz/replay.o)
DEPS := $(OBJS:.o=.d) $(UNIT_BINS:=.d) $(FUZZ_SRCS:%.c=$(BUILD)/%.d) $(BUILD)/tests/fuzz/fuzz.d $(BUILD)/tests/fuzz/replay.d

.PHONY: all pprof check demo install uninstall clean deps unit fuzz fuzz-build

all: pprof

pprof: $(BUILD)/pprof
	cp $< $@.tmp && mv -f $@.tmp $@

$(BUILD)/pprof: $(OBJS)
	$(CC) $(ALL_CFLAGS) $(LTO) $(LDFLAGS) -o $@ $^ $(LIBS)

# A target whose .d file is missing (a first build, an older build tree) is
# rebuilt, as its headers are unknown.  clang writes the .d file after the
# object: the object is touched, or it would stay older than its .d forever.
$(BUILD)/%.o: %.c $(BUILD)/%.d
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LTO_OBJECTS) $(CPPFLAGS) $(PKG_CFLAGS) $(DEPFLAGS) -c -o $@ $<
	@touch $@

$(PROTO_GEN).c $(PROTO_GEN).h &: src/proto/profile.proto
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(dir $@) --proto_path=src/proto profile.proto

$(PROTO_GEN).o: $(PROTO_GEN).c $(PROTO_GEN).h
	$(CC) $(ALL_CFLAGS) $(LTO_OBJECTS) $(CPPFLAGS) $(PKG_CFLAGS) -c -o $@ $<

# The reader decodes with the generated code.
$(BUILD)/src/readers/proto.o: $(PROTO_GEN).h
$(BUILD)/src/readers/proto.o: CPPFLAGS += -I$(BUILD)/gen

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/tests/%.d $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(NO_LTO) $(CPPFLAGS) $(PKG_CFLAGS) -Itests/unit -Isrc/symbolize -Isrc/report $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS) $(TEST_LIBS)
	@touch $@

# test_decode asks capstone itself what an instruction says: it links it.
$(BUILD)/tests/test_decode: LIBS += $(shell $(PKG_CONFIG) --libs capstone 2>/dev/null)

$(BUILD)/tests/fuzz/%.o: CPPFLAGS += -Itests/fuzz -Isrc/readers

$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/fuzz.o $(FUZZ_DRIVER) $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(NO_LTO) $(LDFLAGS) -o $@ $^ $(LIBS)

$(DEPS):
include $(wildcard $(DEPS))

unit: $(UNIT_BINS) $(FUZZ_BINS)
	@mkdir -p tests/unit/bin
	@for b in $(UNIT_BINS); do cp $$b tests/unit/bin/; done
	@for b in $(FUZZ_BINS); do cp $$b tests/unit/bin/fuzz-$${b##*/}; done

# make fuzz FUZZ_SECONDS=N: each harness for N seconds (tests/fuzz/README).
FUZZ_SECONDS ?= 60
fuzz:
	$(MAKE) FUZZ=1 fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run build/fuzz/fuzz

fuzz-build: $(FUZZ_BINS)

deps:
	@scripts/install-deps

# VALGRIND=1 runs pprof and the unit tests under valgrind's memcheck (slow).
check: deps
	$(MAKE) pprof unit
	UNIT_DIR=tests/unit/bin VALGRIND=$(VALGRIND) tests/run-tests

demo: deps
	$(MAKE) pprof
	scripts/demo

install: pprof
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 pprof $(DESTDIR)$(BINDIR)/pprof
	install -m 644 man/pprof.1 $(DESTDIR)$(MANDIR)/pprof.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pprof $(DESTDIR)$(MANDIR)/pprof.1

clean:
	rm -rf build pprof tests/unit/bin
