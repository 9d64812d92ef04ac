package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/idemq/idemq/idem"
)

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
