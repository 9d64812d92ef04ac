package main

import (
	"context"
	"flag"
	"fmt"
)

// runInspect shows one record.
func runInspect(ctx context.Context, e *env, fs *flag.FlagSet, args []string) int {
	pos, ok := e.parse(fs, args, 1)
	if !ok {
		return exitUsage
	}
	key, err := e.key(pos[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", fs.Name(), err)
		return exitUsage
	}
	st, closeStore, ok := e.open(ctx, fs.Name())
	if !ok {
		return exitUsage
	}
	defer closeStore()
	rec, found, err := st.Get(ctx, key)
	if err != nil {
		return e.fail(fs.Name(), err)
	}
	if !found {
		fmt.Fprintf(e.stderr, "%s: no record for key %q: the key was never claimed, or its record expired and was deleted, or was released\n", fs.Name(), string(key))
		return exitFailed
	}
	v := viewOf(&e.settings, rec, e.now())
	if e.json {
		writeJSON(e.stdout, v)
		return exitOK
	}
	v.print(e.stdout)
	return exitOK
}
