package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/idemq/idemq/idem"
)

// Exit codes.
const (
	exitOK      = 0 // done, or nothing to do when asked nothing
	exitFailed  = 1 // failed, refused, answered no, or the key has no record
	exitUsage   = 2 // a bad command line or setting
	exitChanged = 3 // a change refused by the fence: the record changed since it was read
)

// env is what a command runs with: its input and outputs, the
// environment, and its settings once parsed.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	settings
}

// subcommand is one of the command's verbs.
type subcommand struct {
	usage string // the arguments, after the name
	help  string
	run   func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) int
}

var subcommands = map[string]subcommand{
	"inspect": {"KEY|--body JSON [--scope S] [--raw]", "show a record: status, owner, lease and expiry left, result size and where it is stored, fingerprint", runInspect},
	"list":    {"[--status in-progress|completed] [--older-than D] [--limit N] [--cursor C] [--all]", "list the namespace's records, a page at a time (--all: every namespace's)", runList},
	"stuck":   {"[--limit N] [--cursor C] [--all]", "list the namespace's IN_PROGRESS records whose lease has passed (--all: every namespace's)", runStuck},
	"release": {"KEY|--body JSON [--scope S] [--raw] [--force]", "delete an IN_PROGRESS record so that the next delivery runs the work", runRelease},
	"purge":   {"KEY|--body JSON [--scope S] [--raw] [--force]", "delete a record, whatever its status", runPurge},
	"redrive": {"--dlq URL|ARN [--to URL|ARN] [--max-per-second N]", "move a dead-letter queue's messages back to their source queue", runRedrive},
}

// run runs the command line args (without the program's name) and
// returns the exit code. Everything the command reads and writes goes
// through its arguments, so tests run it as a user would.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	sub, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "idemq: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, now: time.Now}
	fs := flag.NewFlagSet("idemq "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: idemq %s %s\n\n%s.\n\nflags (each store setting defaults to its IDEMQ_* variable):\n", args[0], sub.usage, sub.help)
		fs.PrintDefaults()
	}
	e.register(fs)
	return sub.run(ctx, e, fs, args[1:])
}

// parse parses args with fs, flags before or after the positional
// arguments, and checks that there are want of these (any number when
// want is negative).
func (e *env) parse(fs *flag.FlagSet, args []string, want int) ([]string, bool) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, false // fs printed why
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if want >= 0 && len(pos) != want {
		fmt.Fprintf(e.stderr, "%s: want %d argument(s), got %d\n", fs.Name(), want, len(pos))
		fs.Usage()
		return nil, false
	}
	if err := e.fromEnv(fs, e.getenv); err != nil {
		fmt.Fprintf(e.stderr, "%s: %s\n", fs.Name(), escape(err.Error()))
		return nil, false
	}
	return pos, true
}

// open connects to the store, or says why not.
func (e *env) open(ctx context.Context, name string) (idem.Admin, func(), bool) {
	st, closeStore, err := openStore(ctx, &e.settings, e.getenv, e.stderr)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %s\n", name, escape(err.Error()))
		return nil, nil, false
	}
	return st, closeStore, true
}

// fail prints err for the command name and returns its exit code: a
// record changed since it was read is exitChanged.
func (e *env) fail(name string, err error) int {
	fmt.Fprintf(e.stderr, "%s: %s\n", name, escape(e.firstRun(err).Error()))
	if errors.Is(err, idem.ErrRecordChanged) {
		return exitChanged
	}
	return exitFailed
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: idemq COMMAND [ARGS] [FLAGS]\n\nThe operator's command for idemq's records and dead letters; it reads the worker's IDEMQ_* settings.\n\ncommands:")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n           %s\n", n, subcommands[n].usage, subcommands[n].help)
	}
	fmt.Fprintln(w, "\nRun idemq COMMAND -h for a command's flags. See docs/cli.md.")
}

// keyRecord is what a command on one key read: the store, the key and
// the key's record (found false: none).
type keyRecord struct {
	st    idem.Admin
	key   idem.Key
	rec   idem.Record
	found bool
	close func()
}

// readKey parses the command's KEY argument, opens the store and reads
// the key's record. When it cannot it says why on stderr and returns
// ok false with the code to exit with; otherwise the caller calls
// kr.close.
func (e *env) readKey(ctx context.Context, fs *flag.FlagSet, args []string) (kr keyRecord, code int, ok bool) {
	e.registerKey(fs)
	pos, ok := e.parse(fs, args, -1)
	if !ok {
		return kr, exitUsage, false
	}
	key, err := e.recordKey(pos)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %s\n", fs.Name(), escape(err.Error()))
		return kr, exitUsage, false
	}
	st, closeStore, ok := e.open(ctx, fs.Name())
	if !ok {
		return kr, exitUsage, false
	}
	rec, found, err := st.Get(ctx, key)
	if err != nil {
		closeStore()
		return kr, e.fail(fs.Name(), err), false
	}
	return keyRecord{st: st, key: key, rec: rec, found: found, close: closeStore}, exitOK, true
}
