// Command pipeline runs idemq's real local pipeline: an SQS server
// (fauxqs), the reference worker under Lambda Runtime Interface Emulators,
// a local event source mapping and a fake model provider, with every cause
// of redelivery switched on, through a standard queue and then a FIFO
// queue (with the in-progress back-off on); then the same worker as
// long-running consumer processes polling a standard and a FIFO queue
// through a fault-injecting SQS proxy (kill -9 during calls and deletes,
// SIGTERM during calls, lost visibility extensions, broker duplicates); on
// each store: DynamoDB Local, PostgreSQL and Redis, each behind a proxy
// that slows, refuses and cuts requests. With -queues mixed it runs a
// standard queue with answers of 1 KB to 2 MiB that the workers offload to
// a bucket on a local S3 server (moto) instead. It prints progress, then
// the reports, and exits 1 if a guarantee was broken.
//
//	with-servers go run ./cmd/pipeline                         # make pipeline
//	with-servers go run ./cmd/pipeline -stores postgres       # PostgreSQL only
//	with-servers go run ./cmd/pipeline -queues fifo           # the FIFO runs only
//	with-servers go run ./cmd/pipeline -queues consumer,consumer-fifo  # the consumer runs only
//	with-servers go run ./cmd/pipeline -queues mixed          # make pipeline-mixed: answers of 1 KB to 2 MiB, offloaded to S3
//	scripts/with-dynamodb.sh go run ./cmd/pipeline -naive     # make demo-local: with the two naive variants side by side
//
// where with-servers is scripts/with-dynamodb.sh scripts/with-postgres.sh
// scripts/with-redis.sh scripts/with-s3.sh: each starts its server for the run and exports
// where it listens.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/idemq/idemq/harness/internal/pipeline"
	"github.com/idemq/idemq/harness/internal/repo"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
	"github.com/idemq/idemq/idem/redisstore/redistest"
	"github.com/idemq/idemq/internal/testenv"
)

func main() {
	seed := flag.Uint64("seed", 1, "seed for the fault plan")
	requests := flag.Int("requests", 0, "unique requests per run (default: each run's own)")
	small := flag.Bool("small", false, "the smaller runs the tests make")
	naive := flag.Bool("naive", false, "the demo's scenario on the standard queue, through idemq and the two naive variants, side by side")
	queues := flag.String("queues", "standard,fifo,consumer,consumer-fifo", "the runs to make, comma-separated: standard, fifo (the worker under the emulator), consumer, consumer-fifo (the worker as consumer processes), mixed (a standard queue, answers of 1 KB to 2 MiB, results offloaded to S3) (-naive: standard only)")
	stores := flag.String("stores", "dynamodb,postgres,redis", "the stores to run on, comma-separated: dynamodb, postgres, redis (-naive: dynamodb only)")
	flag.Parse()
	var backends []pipeline.Backend
	for _, s := range strings.Split(*stores, ",") {
		b, err := pipeline.ParseBackend(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		backends = append(backends, b)
	}
	if *naive {
		backends = []pipeline.Backend{pipeline.DynamoDB}
	}
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
			case q == "consumer" && *small:
				cfgs = append(cfgs, pipeline.ConsumerSmall(*seed))
			case q == "consumer":
				cfgs = append(cfgs, pipeline.ConsumerFull(*seed))
			case q == "consumer-fifo" && *small:
				cfgs = append(cfgs, pipeline.ConsumerSmallFIFO(*seed))
			case q == "consumer-fifo":
				cfgs = append(cfgs, pipeline.ConsumerFullFIFO(*seed))
			case q == "mixed" && *small:
				cfgs = append(cfgs, pipeline.SmallMixed(*seed))
			case q == "mixed":
				cfgs = append(cfgs, pipeline.Mixed(*seed))
			default:
				fmt.Fprintf(os.Stderr, "pipeline: -queues: unknown run %q (want standard, fifo, consumer, consumer-fifo or mixed)\n", q)
				os.Exit(2)
			}
		}
	}
	var runs []pipeline.Config
	for _, b := range backends {
		for _, c := range cfgs {
			c.Backend = b
			if *requests > 0 {
				c.Requests = *requests
			}
			runs = append(runs, c)
		}
	}
	if err := run(runs, backends, *naive); err != nil {
		fmt.Fprintln(os.Stderr, "pipeline:", err)
		os.Exit(1)
	}
}

func run(cfgs []pipeline.Config, backends []pipeline.Backend, naive bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	parts, cleanup, err := start(ctx, cfgs, backends)
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
		if cfg.Answers != (pipeline.Sizes{}) {
			queue += fmt.Sprintf(" with answers of %d to %d bytes", cfg.Answers.Min, cfg.Answers.Max)
		}
		if cfg.Blobs {
			queue += " offloaded to S3"
		}
		queue += " on " + string(cfg.Backend)
		if cfg.Variant == pipeline.Consumer {
			queue = fmt.Sprintf("%d consumer processes: %s", cfg.Instances, queue)
		}
		fmt.Printf("%s: %d requests (+%d without a key), %d instances, batches of %d, a %s model call (%s for some: longer than the %s visibility timeout), a %s lease.\n",
			queue, cfg.Requests, cfg.Poison, cfg.Instances, cfg.BatchSize, cfg.CallTime, cfg.SlowCall, cfg.Visibility, cfg.Lease)
		fmt.Printf("Faults on: %v; the store: %+v; in-progress back-off: %v.\n\n", cfg.Faults.Rates, cfg.Store, cfg.Backoff)
		variants := []pipeline.Variant{cfg.Variant}
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

// serverEnv names, per store, the variable its script
// (scripts/with-STORE.sh) exports where its server listens.
var serverEnv = map[pipeline.Backend]string{
	pipeline.DynamoDB: dynamotest.EndpointEnv,
	pipeline.Postgres: pgtest.URLEnv,
	pipeline.Redis:    redistest.URLEnv,
}

// s3EndpointEnv names the variable scripts/with-s3.sh exports where its S3
// server (moto) listens: the mixed runs' result bucket.
const s3EndpointEnv = testenv.S3Endpoint

// start starts the SQS server and builds the worker; the stores' servers
// come from the scripts/with-*.sh scripts.
func start(ctx context.Context, cfgs []pipeline.Config, backends []pipeline.Backend) (pipeline.Parts, func(), error) {
	var parts pipeline.Parts
	if slices.ContainsFunc(cfgs, func(c pipeline.Config) bool { return c.Blobs }) {
		if parts.S3 = os.Getenv(s3EndpointEnv); parts.S3 == "" {
			return parts, nil, fmt.Errorf("%s is unset: run under scripts/with-s3.sh (make pipeline does)", s3EndpointEnv)
		}
	}
	urls := map[pipeline.Backend]*string{pipeline.DynamoDB: &parts.DynamoDB, pipeline.Postgres: &parts.Postgres, pipeline.Redis: &parts.Redis}
	for _, b := range backends {
		env := serverEnv[b]
		if *urls[b] = os.Getenv(env); *urls[b] == "" {
			return parts, nil, fmt.Errorf("%s is unset: run under scripts/with-%s.sh (make pipeline does)", env, b)
		}
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
	parts.SQS, parts.RIE, parts.Bootstrap = sqs.Endpoint, rie, bootstrap
	return parts, cleanup, nil
}
