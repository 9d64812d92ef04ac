package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemq/idemq/idem"
	idemstores "github.com/idemq/idemq/idem/stores"
)

// listFlags are the flags of list and stuck.
type listFlags struct {
	limit  int
	cursor string
	all    bool
}

func (l *listFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&l.limit, "limit", 50, "the most records a page shows")
	fs.StringVar(&l.cursor, "cursor", "", "go on from the cursor the page before printed")
	fs.BoolVar(&l.all, "all", false, "list the records of every namespace, not only IDEMQ_NAMESPACE's")
}

// runList lists records.
func runList(ctx context.Context, e *env, fs *flag.FlagSet, args []string) int {
	var lf listFlags
	lf.register(fs)
	status := fs.String("status", "", "in-progress or completed (default both)")
	olderThan := fs.Duration("older-than", 0, "only records last written (claimed, renewed or completed) more than this long ago, dated by their expiry less --record-expiry")
	if _, ok := e.parse(fs, args, 0); !ok {
		return exitUsage
	}
	req := idem.ListRequest{}
	switch strings.ToLower(strings.ReplaceAll(*status, "_", "-")) {
	case "":
	case "in-progress", "inprogress":
		req.Status = idem.StatusInProgress
	case "completed":
		req.Status = idem.StatusCompleted
	default:
		fmt.Fprintf(e.stderr, "%s: --status %q: want in-progress or completed\n", fs.Name(), *status)
		return exitUsage
	}
	if *olderThan < 0 {
		fmt.Fprintf(e.stderr, "%s: --older-than %s: want a positive duration\n", fs.Name(), *olderThan)
		return exitUsage
	}
	if *olderThan > 0 {
		// A record written at w expires at w + the records' expiry, so
		// one written before now - D expires before now - D + expiry.
		req.ExpiresBefore = e.now().Add(e.expiry - *olderThan)
	}
	return e.list(ctx, fs, req, lf)
}

// runStuck lists the IN_PROGRESS records past their lease: the claims of
// workers that stopped (a timeout, a crash) and will be taken over by the
// next delivery of their message.
func runStuck(ctx context.Context, e *env, fs *flag.FlagSet, args []string) int {
	var lf listFlags
	lf.register(fs)
	if _, ok := e.parse(fs, args, 0); !ok {
		return exitUsage
	}
	return e.list(ctx, fs, idem.ListRequest{Status: idem.StatusInProgress, LeaseBefore: e.now()}, lf)
}

// list prints one page of req: of the namespace's records (scoped keys
// included), or with --all of every namespace's, and says which.
func (e *env) list(ctx context.Context, fs *flag.FlagSet, req idem.ListRequest, lf listFlags) int {
	if lf.limit < 1 {
		fmt.Fprintf(e.stderr, "%s: --limit %d: want at least 1\n", fs.Name(), lf.limit)
		return exitUsage
	}
	req.Limit, req.Cursor = lf.limit, lf.cursor
	whose := "every namespace (--all)"
	switch {
	case lf.all:
	case e.namespace == "":
		fmt.Fprintf(e.stderr, "%s: IDEMQ_NAMESPACE (or --namespace) is required: the command lists its namespace's records; --all lists every namespace's\n", fs.Name())
		return exitUsage
	case idem.CheckValue(e.namespace) != nil:
		fmt.Fprintf(e.stderr, "%s: namespace %q: %v\n", fs.Name(), e.namespace, idem.CheckValue(e.namespace))
		return exitUsage
	default:
		req.Namespace = e.namespace
		whose = fmt.Sprintf("namespace %s (scoped keys included)", e.namespace)
	}
	st, closeStore, ok := e.open(ctx, fs.Name())
	if !ok {
		return exitUsage
	}
	defer closeStore()
	if e.store == idemstores.DynamoDB {
		fmt.Fprintf(e.stderr, "%s: scan: reads the whole table %s, billed by the size of every item it reads\n", fs.Name(), e.table)
	}
	page, err := st.List(ctx, req)
	if err != nil {
		return e.fail(fs.Name(), err)
	}
	now := e.now()
	if e.json {
		fmt.Fprintf(e.stderr, "%s: the records of %s\n", fs.Name(), whose)
		for _, r := range page.Records {
			writeJSON(e.stdout, viewOf(&e.settings, r, now))
		}
		if page.Next != "" {
			writeJSON(e.stdout, map[string]string{"next": page.Next})
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tSTATUS\tOWNER\tLEASE\tEXPIRY\tRESULT")
	for _, r := range page.Records {
		v := viewOf(&e.settings, r, now)
		lease := "-"
		switch {
		case v.LeaseUntil == nil && v.Status == string(idem.StatusInProgress):
			lease = "none"
		case v.LeasePassed:
			lease = "passed " + strings.TrimPrefix(v.LeaseLeft, "-") + " ago"
		case v.LeaseUntil != nil:
			lease = v.LeaseLeft + " left"
		}
		expiry := v.ExpiryLeft + " left"
		if v.Expired {
			expiry = "expired"
		}
		result := escape(v.Stored)
		if v.Stored != "none" {
			result = fmt.Sprintf("%s %dB", result, v.ResultBytes)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", escape(v.Key), escape(v.Status), escape(v.Owner), lease, expiry, result)
	}
	_ = tw.Flush()
	fmt.Fprintf(e.stdout, "%d record(s) of %s at %s\n", len(page.Records), whose, now.UTC().Format(time.RFC3339))
	if page.Next != "" {
		fmt.Fprintf(e.stdout, "more: add --cursor %s\n", escape(page.Next))
	}
	return exitOK
}
