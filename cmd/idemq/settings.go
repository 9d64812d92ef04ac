package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/idemq/idemq/cmd/idemq/internal/recordkey"
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
	// scope and body name a key (registerKey): a front door caller's
	// scope, and a message body to read the key from.
	scope, body string
	// region is the DynamoDB client's AWS region, once the store is open.
	region string

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
	fs.BoolVar(&s.raw, "raw", false, "KEY is a stored key (namespace#key, namespace:scope#key) as it is, in the namespace if one is set")
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

// registerKey adds the flags that name a key to fs: the commands that
// take a KEY.
func (s *settings) registerKey(fs *flag.FlagSet) {
	fs.StringVar(&s.scope, "scope", "", "the scope of the front door caller the request was made for (its key is namespace:scope#key)")
	fs.StringVar(&s.body, "body", "", "a message body to read the key from, with the worker's key settings, instead of KEY "+
		`(--body '{"document_id":"doc-1","version":1}')`)
}

// recordKey is the stored key that the positional arguments (KEY, or
// none with --body) and the key flags name: the key the worker's handler
// claims for it, made through the request contract by the worker's
// request.Identity as idemqenv read it (internal/recordkey), or with
// --raw the key as it is.
func (s *settings) recordKey(pos []string) (idem.Key, error) {
	t := recordkey.Typed{Body: s.body, Scope: s.scope, Raw: s.raw}
	switch {
	case len(pos) == 1:
		t.Value = pos[0]
	case len(pos) > 1 || s.body == "":
		return "", fmt.Errorf("want one KEY, or --body and no KEY; got %d argument(s)", len(pos))
	}
	key, err := recordkey.Key(s.read.Request, t)
	if errors.Is(err, recordkey.ErrUsage) && s.namespace == "" && !s.raw {
		return "", fmt.Errorf("IDEMQ_NAMESPACE (or --namespace) is required to make the stored key, as the worker does; or pass the stored key with --raw")
	}
	return key, err
}
