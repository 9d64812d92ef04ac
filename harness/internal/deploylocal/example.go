package deploylocal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dynamotypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/harness/internal/pipeline"
)

// ExampleDir is the example app, relative to the repository's root: a
// team's own CDK app with idemq attached (docs/deploy.md, "Add idemq to an
// existing app").
const ExampleDir = "examples/existing-app"

// ExampleResult is what became of the example app's orders.
type ExampleResult struct {
	// Sent is how many messages were sent, duplicates included, for
	// Orders orders.
	Sent, Orders int
	// Confirmed is how many times the function did its work for each
	// order (its "order confirmed" log lines), by idempotency key.
	Confirmed map[string]int
	// Executed and Replayed are the handler's own counts, summed over the
	// EMF lines the function wrote (IDEMQ_EMF_NAMESPACE).
	Executed, Replayed int
	// Completed is how many records in the deployed table are COMPLETED.
	Completed int
	// Stats is the local event source mapping's count of deliveries.
	Stats loadtest.Stats
	// DeadLetters is how many messages ended in the dead-letter queue.
	DeadLetters int
}

func (r *ExampleResult) String() string {
	return fmt.Sprintf("example app: %d messages for %d orders; work done per order %v; the handler's counts: %d executed, %d replayed; %d COMPLETED records; %d dead letters",
		r.Sent, r.Orders, r.Confirmed, r.Executed, r.Replayed, r.Completed, r.DeadLetters)
}

// runExample deploys the example app with the CLI in its own folder (its
// cdk.json) to the moto that cdk bootstrap prepared, checks the deployment
// as the reference stack's is checked (the example's dead-letter queue is
// the team's, not kept), runs the deployed function under the emulator
// with the deployed environment on orders sent several times each, and
// destroys the stack.
func runExample(ctx context.Context, cfg Config, endpoint string, cdk *cli, c clients, work string, res *Result, step func(string, func() error) error) error {
	ex := cdk.in(filepath.Join(cfg.Root, ExampleDir))
	asm := filepath.Join(work, "example.out")
	var tpl *template
	if err := step("cdk synth (example app)", func() error {
		if err := ex.run(ctx, "synth", "--quiet", "--output", asm); err != nil {
			return err
		}
		var err error
		if tpl, err = readTemplate(asm, ExampleStackName); err != nil {
			return err
		}
		return patchForMoto(asm, ExampleStackName)
	}); err != nil {
		return err
	}
	if err := step("cdk deploy (example app)", func() error {
		return ex.run(ctx, "deploy", "--app", asm, "--require-approval", "never", ExampleStackName)
	}); err != nil {
		return err
	}
	var d *deployed
	if err := step("check the example's deployment", func() error {
		var problems []string
		var err error
		if d, problems, err = describe(ctx, c, tpl, exampleStack); err != nil {
			return err
		}
		if d != nil {
			problems = append(problems, d.checkBucket(ctx, endpoint, tpl)...)
		}
		if len(problems) > 0 {
			return fmt.Errorf("deploylocal: the example's deployment differs from its template:\n\t%s", strings.Join(problems, "\n\t"))
		}
		return nil
	}); err != nil {
		return err
	}
	res.Example = &ExampleResult{Orders: cfg.Keys}
	if err := step("run the example's function", func() error {
		return runOrders(ctx, cfg, endpoint, c, d, work, res.Example)
	}); err != nil {
		return err
	}
	return step("cdk destroy (example app)", func() error {
		if err := ex.run(ctx, "destroy", "--app", asm, "--force", ExampleStackName); err != nil {
			return err
		}
		return checkDestroyed(ctx, c, d, endpoint, exampleStack)
	})
}

// confirmedLine is the example function's log line for an order it
// confirmed: its work, done once per order.
var confirmedLine = regexp.MustCompile(`order confirmed order=(\S+)`)

// runOrders runs the example's deployed bootstrap on cfg.Keys orders sent
// cfg.Copies times each, in two rounds (the first copies, drained, then
// the others), and records what came of it.
func runOrders(ctx context.Context, cfg Config, endpoint string, c clients, d *deployed, work string, res *ExampleResult) error {
	dir := filepath.Join(work, "example-function")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bootstrap, err := fetchAsset(ctx, endpoint, d.assetBucket, d.assetKey, d.arch, dir)
	if err != nil {
		return err
	}
	// The deployed environment, with what Lambda adds and the AWS
	// endpoints moto's.
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"AWS_LAMBDA_FUNCTION_NAME=" + d.function, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=" + strconv.Itoa(d.memoryMB),
		"AWS_REGION=" + Region, "AWS_DEFAULT_REGION=" + Region,
		"AWS_ACCESS_KEY_ID=idemqlocal", "AWS_SECRET_ACCESS_KEY=idemqlocal", "AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_DYNAMODB=" + endpoint, "AWS_ENDPOINT_URL_SQS=" + endpoint, "AWS_ENDPOINT_URL_S3=" + endpoint,
		"AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:1", // the start-up's read of the mappings: refused, logged
	}
	for k, v := range d.env {
		env = append(env, k+"="+v)
	}
	if _, err := c.lambda.UpdateEventSourceMapping(ctx, &lambda.UpdateEventSourceMappingInput{UUID: aws.String(d.mapping), Enabled: aws.Bool(false)}); err != nil {
		return fmt.Errorf("deploylocal: disable moto's event source mapping of the example: %w", err)
	}
	q, err := pipeline.OpenQueue(ctx, pipeline.NewSQSClient(endpoint), d.queueURL, d.dlqURL, false)
	if err != nil {
		return err
	}
	var instances []loadtest.Invoker
	var logs []func() string
	for i := range cfg.Instances {
		in, err := pipeline.StartInstance(ctx, pipeline.InstanceConfig{
			Name: fmt.Sprintf("orders%d", i), RIE: cfg.RIE, Bootstrap: bootstrap, Env: env, Timeout: d.timeout,
		})
		if err != nil {
			return err
		}
		defer func() {
			fmt.Fprintf(cfg.Log, "--- deploylocal: the output of the example's function instance %d:\n%s\n", i, in.Logs())
			in.Close()
		}()
		instances = append(instances, in)
		logs = append(logs, in.Logs)
	}
	sendOrders := func() error {
		for k := range cfg.Keys {
			if err := q.Send(ctx, fmt.Sprintf(`{"idempotency_key":"order-%d","item":"book","quantity":%d}`, k, k+1)); err != nil {
				return fmt.Errorf("deploylocal: send: %w", err)
			}
			res.Sent++
		}
		return nil
	}
	runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for round := range min(cfg.Copies, 2) {
		copies := 1
		if round > 0 {
			orphanedPolls()
			copies = cfg.Copies - 1
		}
		for range copies {
			if err := sendOrders(); err != nil {
				return err
			}
		}
		esm := &loadtest.ESM{Source: q, Instances: instances, BatchSize: d.batchSize, BatchingWindow: d.window, Timeout: d.timeout}
		stats, err := esm.Run(runCtx, nil)
		if err != nil {
			return fmt.Errorf("deploylocal: the example's event source mapping, round %d: %w", round+1, err)
		}
		res.Stats = addStats(res.Stats, stats)
	}
	res.Confirmed = map[string]int{}
	for _, l := range logs {
		for _, line := range strings.Split(l(), "\n") {
			if m := confirmedLine.FindStringSubmatch(line); m != nil {
				res.Confirmed[m[1]]++
			}
			var emf struct {
				AWS                any `json:"_aws"`
				Executed, Replayed int
			}
			if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &emf) == nil && emf.AWS != nil {
				res.Executed += emf.Executed
				res.Replayed += emf.Replayed
			}
		}
	}
	items, err := c.dynamo.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(d.table)})
	if err != nil {
		return fmt.Errorf("deploylocal: scan the example's table: %w", err)
	}
	for _, it := range items.Items {
		if s, ok := it["status"].(*dynamotypes.AttributeValueMemberS); ok && s.Value == "COMPLETED" {
			res.Completed++
		}
	}
	dead, err := q.DeadLetters(ctx)
	if err != nil {
		return err
	}
	res.DeadLetters = len(dead)
	fmt.Fprintf(cfg.Log, "--- deploylocal: %s\n", res)
	return nil
}
