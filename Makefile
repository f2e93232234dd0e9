# Makefile for pprof.  `make` builds ./pprof; `make check` installs what is
# missing, builds and runs every test; `make demo` analyzes a bundled example.
# SANITIZE=1 builds with AddressSanitizer and UndefinedBehaviorSanitizer.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1

PKGS = libdw libelf libpcre2-8 zlib libedit libcgraph libgvc capstone libprotobuf-c libcurl libmicrohttpd libdeflate
PKG_CONFIG ?= pkg-config

CC ?= cc
CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Wshadow -Wno-sign-compare -Wno-unused-parameter -Wno-missing-field-initializers
CPPFLAGS += -D_GNU_SOURCE -Iinclude
ALL_CFLAGS = -std=gnu11 -pthread $(WARN) $(CFLAGS)
# Each compile also writes TARGET.d, the headers TARGET was built from.
DEPFLAGS = -MMD -MP
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
# libiberty (binutils' demangler) ships no pkg-config file.
LIBS = $(PKG_LIBS) -liberty -lpthread -lm

ifeq ($(SANITIZE),1)
BUILD = build/san
ALL_CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
BUILD = build/opt
endif

SRCS := $(wildcard src/*.c src/*/*.c)
# profile.proto's C code is generated at build time by protoc-c.
PROTO_GEN = $(BUILD)/gen/profile.pb-c
OBJS := $(SRCS:%.c=$(BUILD)/%.o) $(PROTO_GEN).o
LIB_OBJS := $(filter-out $(BUILD)/src/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
DEPS := $(OBJS:.o=.d) $(UNIT_BINS:=.d)

.PHONY: all pprof check demo install uninstall clean deps unit

all: pprof

pprof: $(BUILD)/pprof
	cp $< $@.tmp && mv -f $@.tmp $@

$(BUILD)/pprof: $(OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# A target whose .d file is missing (a first build, an older build tree) is
# rebuilt, as its headers are unknown.
$(BUILD)/%.o: %.c $(BUILD)/%.d
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) $(PKG_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(PROTO_GEN).c $(PROTO_GEN).h &: src/proto/profile.proto
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(dir $@) --proto_path=src/proto profile.proto

$(PROTO_GEN).o: $(PROTO_GEN).c $(PROTO_GEN).h
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) $(PKG_CFLAGS) -c -o $@ $<

# The reader decodes with the generated code.
$(BUILD)/src/readers/proto.o: $(PROTO_GEN).h
$(BUILD)/src/readers/proto.o: CPPFLAGS += -I$(BUILD)/gen

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/tests/%.d $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) $(PKG_CFLAGS) -Itests/unit -Isrc/symbolize $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

$(DEPS):
include $(wildcard $(DEPS))

unit: $(UNIT_BINS)
	@mkdir -p tests/unit/bin
	@for b in $(UNIT_BINS); do cp $$b tests/unit/bin/; done

deps:
	@scripts/install-deps

check: deps
	$(MAKE) pprof unit
	UNIT_DIR=tests/unit/bin tests/run-tests

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
