package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
)

// settings are a command's settings: the worker's variables the command
// reads (idemqenv.Vars, each also a flag: Var.Flag), and the flags every
// command takes.
type settings struct {
	store, table, storeURL, endpoint, namespace string
	blobBucket, blobPrefix, sqsEndpoint         string
	expiry                                      time.Duration
	raw, yes, json                              bool

	flags map[string]*string // the flags of the variables, by variable name
	read  idemqenv.Settings  // what the variables and flags read as
}

// register adds the settings' flags to fs: one for each variable the
// command reads, and the flags every command takes. A flag left unset
// takes its variable (fromEnv); the help never shows a variable's value,
// which may hold the store's password.
func (s *settings) register(fs *flag.FlagSet) {
	s.flags = map[string]*string{}
	for _, v := range idemqenv.Vars() {
		if v.Flag == "" {
			continue
		}
		usage := strings.ReplaceAll(v.Doc, "`", "") + " (env " + v.Name
		if v.Default != "" {
			usage += "; default " + strings.ReplaceAll(v.Default, "`", "")
		}
		s.flags[v.Name] = fs.String(v.Flag, "", usage+")")
	}
	fs.BoolVar(&s.raw, "raw", false, "KEY is a stored key (namespace#key) as it is")
	fs.BoolVar(&s.yes, "yes", false, "do not ask before changing anything")
	fs.BoolVar(&s.json, "json", false, "print JSON, one object per record or change, for scripts")
}

// fromEnv reads the command's variables through getenv, each overridden
// by its flag when fs set it, as idemqenv reads them for the command: a
// bad value is an error naming the variable and its flag. What the store
// lacks is asked for only when a command opens it (openStore).
func (s *settings) fromEnv(fs *flag.FlagSet, getenv func(string) string) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	lookup := func(name string) string {
		if v, ok := idemqenv.Lookup(name); ok && v.Flag != "" && set[v.Flag] {
			return *s.flags[name]
		}
		return getenv(name)
	}
	r, err := idemqenv.ReadFor(idemqenv.Command, lookup)
	if err != nil {
		return err
	}
	s.read = r
	s.store, s.table, s.storeURL, s.endpoint = r.Store.Kind, r.Store.Table, r.Store.URL, r.Store.DynamoDBEndpoint
	s.namespace, s.expiry = r.Request.Namespace, r.EffectiveExpiry()
	s.blobBucket, s.blobPrefix, s.sqsEndpoint = r.Blobs.Bucket, r.Blobs.Prefix, r.SQSEndpoint
	return nil
}

// key is the stored key of the key an operator typed: the namespace put
// before it as the worker's handler does (idem.ClientKey), or with --raw
// the key as it is.
func (s *settings) key(typed string) (idem.Key, error) {
	if s.raw {
		if typed == "" {
			return "", fmt.Errorf("the key is empty")
		}
		return idem.Key(typed), nil
	}
	if s.namespace == "" {
		return "", fmt.Errorf("%s (or --namespace) is required to make the stored key, as the worker does; or pass the stored key with --raw", idemqenv.Namespace)
	}
	return idem.ClientKey(s.namespace, typed)
}
