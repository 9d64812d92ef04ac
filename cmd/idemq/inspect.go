package main

import (
	"context"
	"flag"
	"fmt"
)

// runInspect shows one record.
func runInspect(ctx context.Context, e *env, fs *flag.FlagSet, args []string) int {
	kr, code, ok := e.readKey(ctx, fs, args)
	if !ok {
		return code
	}
	defer kr.close()
	key, rec, found := kr.key, kr.rec, kr.found
	if !found {
		fmt.Fprintf(e.stderr, "%s: no record for key %s: the key was never claimed, or its record expired and was deleted, or was released\n", fs.Name(), escape(string(key)))
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
