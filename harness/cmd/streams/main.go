// Command streams runs idemq's stream handler on real streams under
// faults (make pipeline-streams): a Kinesis data stream on moto_server
// and a DynamoDB table's stream on DynamoDB Local, each drained by
// streamtest.Drain (Lambda's event source mapping: checkpoints,
// whole-batch retries, bisection) into the handler, its records on
// DynamoDB Local. The producer re-sends requests (a new record, a new
// sequence number), the function fails before its work or loses its
// answer after it, the provider refuses some first calls. It counts the
// provider's calls per key and checks the order of first calls per
// partition key, prints a table, and exits 1 if a guarantee was broken.
//
//	scripts/with-dynamodb.sh scripts/with-sqs.sh go run ./cmd/streams [-sources kinesis] [-seed 2] [-out ../results/pipeline-streams.md]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/idemq/idemq/harness/internal/streams"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/internal/testenv"
)

func main() {
	seed := flag.Uint64("seed", 1, "seed for the records and the faults")
	small := flag.Bool("small", false, "the smaller runs")
	sources := flag.String("sources", "kinesis,dynamodb-streams", "the runs to make, comma-separated: kinesis, dynamodb-streams")
	out := flag.String("out", "", "write the table, with the date and the command, to this Markdown file")
	retries := flag.Int("retries", -1, "the mapping's MaximumRetryAttempts (-1: without end, Lambda's default)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute) // retries without end: a run that never drains fails
	defer cancel()
	parts := streams.Parts{Moto: os.Getenv(testenv.SQSEndpoint), DynamoDB: os.Getenv(dynamotest.EndpointEnv)}
	var reps []*streams.Report
	broken := false
	for _, s := range strings.Split(*sources, ",") {
		src := streams.Source(s)
		if src != streams.Kinesis && src != streams.DynamoDBStreams {
			fmt.Fprintf(os.Stderr, "streams: -sources: unknown run %q (want kinesis or dynamodb-streams)\n", s)
			os.Exit(2)
		}
		cfg := streams.RunConfig(src, *seed, *small)
		cfg.Mapping.MaximumRetryAttempts = *retries
		fmt.Printf("running %s: %d keys over %d partition keys, %d shards; re-sent %.0f%%, provider refuses a first call %.0f%%; of invocations the function fails before its work %.0f%%, dies during a call %.0f%% (lease %s), loses its answer after the work %.0f%%; mapping %+v\n",
			src, cfg.Keys, cfg.Partitions, cfg.Shards, 100*cfg.Resend, 100*cfg.FailFirst, 100*cfg.FunctionErrors, 100*cfg.CrashDuring, cfg.Lease, 100*cfg.CrashAfter, cfg.Mapping)
		rep, err := streams.Run(ctx, parts, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "streams:", err)
			os.Exit(1)
		}
		fmt.Println(rep.Summary())
		reps = append(reps, rep)
		broken = broken || !rep.OK()
	}
	fmt.Println()
	if err := streams.WriteTable(os.Stdout, reps); err != nil {
		fmt.Fprintln(os.Stderr, "streams:", err)
		os.Exit(1)
	}
	if *out != "" {
		if err := write(*out, reps); err != nil {
			fmt.Fprintln(os.Stderr, "streams:", err)
			os.Exit(1)
		}
	}
	if broken {
		fmt.Fprintln(os.Stderr, "streams: idemq broke a guarantee: see the violations above")
		os.Exit(1)
	}
}

// command is how the run was made, without where it was written.
func command() string {
	args := []string{"go run ./cmd/streams"}
	flag.Visit(func(f *flag.Flag) {
		if f.Name != "out" {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	return strings.Join(args, " ")
}

// about says what the runs are, above their table.
const about = `A producer puts each request on a real stream (Kinesis: a stream of 4 shards
on moto_server, PutRecord with the request's partition key; DynamoDB Streams: a
change of the partition's item on DynamoDB Local, NEW_AND_OLD_IMAGES) and puts a
quarter of them again 1 to 30 records later (a new record, a new sequence
number). streamtest.Drain reads each shard while the producer puts, as Lambda's
event source mapping does (batches of 25, ReportBatchItemFailures,
BisectBatchOnFunctionError, retries without end: Lambda's default), into
stream.New(h) over DynamoDB Local, one record at a time, leases of 300 ms.
Faults: the provider refuses 5% of the requests' first calls (the shard resumes
from that record); of the invocations, 10% fail before the work (the whole
batch back, bisected), 5% die at their first provider call (unbilled; nothing
they send after reaches the store, so the key stays in progress until its lease
ends, and the batch, back at once, finds it so until then), 10% lose their
answer after the work. The check: one billed provider call per key; per
partition key, the keys' first calls in the order of their first records;
nothing given up.
`

func write(path string, reps []*streams.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "# Stream runs (`make pipeline-streams`)\n\nRun on %s: `%s`.\n\n%s\n", time.Now().UTC().Format("2006-01-02"), command(), about)
	if err := streams.WriteTable(f, reps); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
