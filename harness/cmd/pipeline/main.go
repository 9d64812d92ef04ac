// Command pipeline runs idemq's real local pipeline: an SQS server
// (fauxqs), DynamoDB Local, the reference worker under Lambda Runtime
// Interface Emulators, a local event source mapping and a fake model
// provider, with every cause of redelivery switched on, through a standard
// queue and then a FIFO queue (with the in-progress back-off on). It prints
// progress, then the reports, and exits 1 if a guarantee was broken.
//
//	scripts/with-dynamodb.sh go run ./cmd/pipeline                 # make pipeline
//	scripts/with-dynamodb.sh go run ./cmd/pipeline -queues fifo    # the FIFO run only
//	scripts/with-dynamodb.sh go run ./cmd/pipeline -naive          # make demo-local: with the two naive variants side by side
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/idemq/idemq/harness/internal/pipeline"
	"github.com/idemq/idemq/harness/internal/repo"
)

func main() {
	seed := flag.Uint64("seed", 1, "seed for the fault plan")
	requests := flag.Int("requests", 0, "unique requests per run (default: each run's own)")
	small := flag.Bool("small", false, "the smaller runs the tests make")
	naive := flag.Bool("naive", false, "the demo's scenario on the standard queue, through idemq and the two naive variants, side by side")
	queues := flag.String("queues", "standard,fifo", "the queues to run, comma-separated: standard, fifo (-naive: standard only)")
	flag.Parse()
	var cfgs []pipeline.Config
	switch {
	case *naive:
		cfgs = []pipeline.Config{pipeline.DemoLocal(*seed)}
	default:
		for _, q := range strings.Split(*queues, ",") {
			switch {
			case q == "standard" && *small:
				cfgs = append(cfgs, pipeline.Small(*seed))
			case q == "standard":
				cfgs = append(cfgs, pipeline.Full(*seed))
			case q == "fifo" && *small:
				cfgs = append(cfgs, pipeline.SmallFIFO(*seed))
			case q == "fifo":
				cfgs = append(cfgs, pipeline.FullFIFO(*seed))
			default:
				fmt.Fprintf(os.Stderr, "pipeline: -queues: unknown queue %q (want standard or fifo)\n", q)
				os.Exit(2)
			}
		}
	}
	for i := range cfgs {
		if *requests > 0 {
			cfgs[i].Requests = *requests
		}
	}
	if err := run(cfgs, *naive); err != nil {
		fmt.Fprintln(os.Stderr, "pipeline:", err)
		os.Exit(1)
	}
}

func run(cfgs []pipeline.Config, naive bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	parts, cleanup, err := start(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	var broken []string
	for _, cfg := range cfgs {
		queue := "a standard queue"
		if cfg.FIFO {
			queue = fmt.Sprintf("a FIFO queue (%d message groups)", cfg.Groups)
		}
		fmt.Printf("%s: %d requests (+%d without a key), %d instances, batches of %d, a %s model call (%s for some: longer than the %s visibility timeout), a %s lease.\n",
			queue, cfg.Requests, cfg.Poison, cfg.Instances, cfg.BatchSize, cfg.CallTime, cfg.SlowCall, cfg.Visibility, cfg.Lease)
		fmt.Printf("Faults on: %v; the store: %+v; in-progress back-off: %v.\n\n", cfg.Faults.Rates, cfg.Store, cfg.Backoff)
		variants := []pipeline.Variant{pipeline.Idemq}
		if naive {
			variants = append(variants, pipeline.MarkAfter, pipeline.ReadThenWrite)
		}
		var reports []*pipeline.Report
		for _, v := range variants {
			cfg.Variant = v
			fmt.Printf("running %s ...\n", v)
			rep, err := pipeline.Run(ctx, parts, cfg, os.Stdout)
			if err != nil {
				return err
			}
			fmt.Println(rep.Summary())
			reports = append(reports, rep)
		}
		if naive {
			if err := pipeline.WriteTable(os.Stdout, reports); err != nil {
				return err
			}
			fmt.Print(`
Every variant got the same queue, the same event source mapping and the same faults. The naive ones
(internal/demo's, run in process) call the provider again for deliveries that arrive during the call
or read before another writes; idemq claims the key first, with one conditional write.
`)
		}
		if !reports[0].OK() {
			broken = append(broken, queue)
		}
	}
	if broken != nil {
		return fmt.Errorf("idemq broke a guarantee on %s: see the violations above", strings.Join(broken, " and "))
	}
	return nil
}

// start starts the SQS server and builds the worker; DynamoDB Local comes
// from scripts/with-dynamodb.sh.
func start(ctx context.Context) (pipeline.Parts, func(), error) {
	endpoint := os.Getenv("IDEMQ_DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return pipeline.Parts{}, nil, errors.New("IDEMQ_DYNAMODB_ENDPOINT is unset: run under scripts/with-dynamodb.sh (make pipeline does)")
	}
	root, err := repo.Root()
	if err != nil {
		return pipeline.Parts{}, nil, err
	}
	rie, err := pipeline.FindRIE(root)
	if err != nil {
		return pipeline.Parts{}, nil, err
	}
	dir, err := os.MkdirTemp("", "idemq-pipeline-")
	if err != nil {
		return pipeline.Parts{}, nil, err
	}
	bootstrap, err := pipeline.BuildBootstrap(ctx, root, dir)
	if err != nil {
		os.RemoveAll(dir)
		return pipeline.Parts{}, nil, err
	}
	sqs, err := pipeline.StartSQS(ctx, root)
	if err != nil {
		os.RemoveAll(dir)
		return pipeline.Parts{}, nil, err
	}
	cleanup := func() { sqs.Stop(); os.RemoveAll(dir) }
	return pipeline.Parts{DynamoDB: endpoint, SQS: sqs.Endpoint, RIE: rie, Bootstrap: bootstrap}, cleanup, nil
}
