// Command demo shows idemq against two naive de-duplications on one
// workload, with every cause of redelivery switched on, in memory, in a few
// seconds.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/idemq/idemq/harness/internal/demo"
)

func main() {
	cfg := demo.DefaultConfig()
	flag.IntVar(&cfg.Requests, "requests", cfg.Requests, "unique requests")
	flag.IntVar(&cfg.Workers, "workers", cfg.Workers, "concurrent function instances")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed for the fault plan")
	flag.Parse()
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(cfg demo.Config) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Printf("%d requests, %d workers, batches of %d, a %s model call, a %s store round trip.\n",
		cfg.Requests, cfg.Workers, cfg.Batch, cfg.CallTime, cfg.StoreLatency)
	fmt.Printf("Redelivery causes on: visibility timeout shorter than the call (%.0f%%), crash after the work before the ack (%.0f%%),\n",
		cfg.ShortVisibility*100, cfg.CrashBeforeAck*100)
	fmt.Printf("the broker's own duplicate (%.0f%%), the producer re-sending with a new message id (%.0f%%).\n\n",
		cfg.BrokerDuplicate*100, cfg.ProducerResend*100)
	variants := []demo.Variant{
		demo.NewIdemq(cfg.StoreLatency, 10*cfg.CallTime),
		demo.NewMarkAfter(cfg.StoreLatency),
		demo.NewReadThenWrite(cfg.StoreLatency),
	}
	var reports []demo.Report
	for _, v := range variants {
		fmt.Printf("running %-28s ", v.Name()+" ...")
		r, err := demo.Run(ctx, cfg, v)
		if err != nil {
			return err
		}
		fmt.Printf("%d deliveries in %s\n", r.Deliveries, r.Elapsed.Round(1e6))
		reports = append(reports, r)
	}
	fmt.Println()
	if err := demo.WriteTable(os.Stdout, reports); err != nil {
		return err
	}
	c := reports[0].Causes
	fmt.Printf(`
Set up: %d short visibility timeouts, %d crashes before the ack, %d broker duplicates, %d producer re-sends.
Every variant sees the same deliveries. Only the claim-first one makes one provider call per key:
  - "mark after the call" lets every delivery that arrives during the call call again;
  - "read, then write" lets two deliveries that read before either writes both call.
idemq claims the key with one conditional write before the call; a duplicate finds the
claim (in progress: left for a retry) or the stored result (replayed), and is never billed.
`, c.ShortVisibility, c.CrashBeforeAck, c.BrokerDuplicate, c.ProducerResend)
	return nil
}
