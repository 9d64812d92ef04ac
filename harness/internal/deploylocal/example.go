package deploylocal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dynamotypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/harness/internal/pipeline"
)

// ExampleDir is the example app, relative to the repository's root: a
// team's own CDK app with idemq attached (docs/deploy.md, "Add idemq to an
// existing app").
const ExampleDir = "examples/existing-app"

// orderBody is the message of order k.
func orderBody(k int) string {
	return fmt.Sprintf(`{"idempotency_key":"order-%d","item":"book","quantity":%d}`, k, k+1)
}

// runExample deploys the example app as it was before idemq (its own
// SqsEventSource feeding its function; -c withoutIdemq=true), sends
// cfg.Keys/2 orders and holds some of them in flight, then deploys it with
// idemq attached (synthesized with --strict: no warning) while it sends
// as many more, and checks that the team's mapping was updated in place:
// one mapping from the queue to the function, the same logical and
// physical id, ReportBatchItemFailures on. It then checks the deployment
// as the reference stack's is checked (the example's dead-letter queue is
// the team's, not kept; its role keeps the team's own grants), sends
// as many more, runs the deployed function under the emulator on all of
// them, and on every order sent again, and destroys the stack.
func runExample(ctx context.Context, cfg Config, endpoint string, cdk *cli, c clients, work string, res *Result, step func(string, func() error) error) error {
	ex := cdk.in(filepath.Join(cfg.Root, ExampleDir))
	asm, asmBefore := filepath.Join(work, "example.out"), filepath.Join(work, "example-before.out")
	// The app, built once for both synths (its cdk.json's "go run ." would
	// link it twice), as make test-builds and the root's cdk.json build
	// theirs (CGO_ENABLED=0, -trimpath: the worker's flags), so that the
	// build cache has its packages compiled.
	app := filepath.Join(work, "orders-app")
	var tpl, tplBefore *template
	if err := step("cdk synth (example app, before idemq)", func() error {
		build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", app, ".")
		build.Dir, build.Stdout, build.Stderr = ex.root, cfg.Log, cfg.Log
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if err := build.Run(); err != nil {
			return fmt.Errorf("deploylocal: build the example app: %w", err)
		}
		if err := ex.run(ctx, "synth", "--app", app, "--quiet", "--output", asmBefore, "--context", "withoutIdemq=true"); err != nil {
			return err
		}
		var err error
		if tplBefore, err = readTemplate(asmBefore, ExampleStackName); err != nil {
			return err
		}
		return patchForMoto(asmBefore, ExampleStackName)
	}); err != nil {
		return err
	}
	if err := step("cdk synth --strict (example app)", func() error {
		if err := ex.run(ctx, "synth", "--app", app, "--quiet", "--strict", "--output", asm); err != nil {
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
	// Orders per phase: before, during and after the deploy.
	per := max(cfg.Keys/2, 1)
	res.Example = &ExampleResult{Orders: 3 * per}
	r := res.Example
	var before *teamMapping
	if err := step("cdk deploy (example app, before idemq)", func() error {
		if err := ex.run(ctx, "deploy", "--app", asmBefore, "--require-approval", "never", ExampleStackName); err != nil {
			return err
		}
		var err error
		before, err = findMapping(ctx, c, tplBefore)
		return err
	}); err != nil {
		return err
	}
	r.Mapping.LogicalID, r.Mapping.Before, r.Mapping.ReportsBefore = before.logicalID, before.uuid, before.reports
	// moto's mapping would receive each message as it is sent and fail to
	// invoke the function (see the package documentation): off. Its
	// update by the next deploy leaves it off (the template sets no
	// Enabled).
	if _, err := c.lambda.UpdateEventSourceMapping(ctx, &lambda.UpdateEventSourceMappingInput{UUID: aws.String(before.uuid), Enabled: aws.Bool(false)}); err != nil {
		return fmt.Errorf("deploylocal: disable moto's event source mapping of the example: %w", err)
	}
	q, err := pipeline.OpenQueue(ctx, pipeline.NewSQSClient(endpoint), before.queueURL, before.dlqURL, false)
	if err != nil {
		return err
	}
	send := func(k int) error {
		if err := q.Send(ctx, orderBody(k)); err != nil {
			return fmt.Errorf("deploylocal: send: %w", err)
		}
		r.Sent++
		return nil
	}
	if err := step("send orders, hold some in flight", func() error {
		for k := range per {
			if err := send(k); err != nil {
				return err
			}
			r.Before++
		}
		// A poller of the old mapping holding messages: hidden until
		// after the deploy has begun, then back.
		out, err := c.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(before.queueURL), MaxNumberOfMessages: 3, VisibilityTimeout: 5})
		if err != nil {
			return fmt.Errorf("deploylocal: hold messages in flight: %w", err)
		}
		r.InFlight = len(out.Messages)
		return nil
	}); err != nil {
		return err
	}
	if err := step("cdk deploy (example app, idemq attached, orders sent during it)", func() error {
		done := make(chan error, 1)
		// An update through a change set fails on moto (the CLI looks for
		// its last change set and gets "Stack with id … does not exist",
		// not ChangeSetNotFound): UpdateStack directly.
		go func() {
			done <- ex.run(ctx, "deploy", "--app", asm, "--require-approval", "never", "--method=direct", ExampleStackName)
		}()
		var deployErr error
		deploying := true
		for k := per; k < 2*per; k++ {
			select {
			case deployErr = <-done:
				deploying = false
			case <-time.After(50 * time.Millisecond):
			}
			if err := send(k); err != nil {
				return err
			}
			if deploying {
				r.During++
			} else {
				r.After++
			}
		}
		if deploying {
			deployErr = <-done
		}
		return deployErr
	}); err != nil {
		return err
	}
	if err := step("check the mapping was updated in place", func() error {
		after, err := findMapping(ctx, c, tpl)
		if err != nil {
			return err
		}
		r.Mapping.After, r.Mapping.ReportsAfter = after.uuid, after.reports
		out, err := c.lambda.ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{EventSourceArn: aws.String(after.queueARN)})
		if err != nil {
			return fmt.Errorf("deploylocal: list the event source mappings: %w", err)
		}
		for _, m := range out.EventSourceMappings {
			if strings.HasSuffix(aws.ToString(m.FunctionArn), ":function:"+after.function) {
				r.Mapping.FromQueue++
			}
		}
		if after.logicalID != before.logicalID {
			return fmt.Errorf("deploylocal: the example's event source mapping is %s with idemq, %s before: CloudFormation replaced it", after.logicalID, before.logicalID)
		}
		return nil
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
	if err := step("run the example's function", func() error {
		return runOrders(ctx, cfg, endpoint, c, d, q, work, send, r)
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

// teamMapping is the example's one event source mapping as deployed.
type teamMapping struct {
	logicalID, uuid    string
	queueURL, dlqURL   string
	queueARN, function string
	reports            bool // ReportBatchItemFailures, as moto reports it
}

// findMapping finds the example's event source mapping in tpl (its only
// one) and as deployed, with its queue and function.
func findMapping(ctx context.Context, c clients, tpl *template) (*teamMapping, error) {
	id, esm, err := tpl.one("AWS::Lambda::EventSourceMapping", nil)
	if err != nil {
		return nil, err
	}
	out, err := c.cfn.ListStackResources(ctx, &cloudformation.ListStackResourcesInput{StackName: aws.String(ExampleStackName)})
	if err != nil {
		return nil, fmt.Errorf("deploylocal: list the example's resources: %w", err)
	}
	physical := map[string]string{}
	for _, r := range out.StackResourceSummaries {
		physical[aws.ToString(r.LogicalResourceId)] = aws.ToString(r.PhysicalResourceId)
	}
	m := &teamMapping{logicalID: id, uuid: physical[id], function: physical[refOf(esm.Properties["FunctionName"])]}
	queueID := refOf(esm.Properties["EventSourceArn"])
	queueRes := tpl.Resources[queueID]
	dlqID := refOf(queueRes.Properties["RedrivePolicy"].(map[string]any)["deadLetterTargetArn"])
	if m.queueURL, err = localQueueURL(ctx, c.sqs, physical[queueID]); err != nil {
		return nil, err
	}
	if m.dlqURL, err = localQueueURL(ctx, c.sqs, physical[dlqID]); err != nil {
		return nil, err
	}
	got, err := c.lambda.GetEventSourceMapping(ctx, &lambda.GetEventSourceMappingInput{UUID: aws.String(m.uuid)})
	if err != nil {
		return nil, fmt.Errorf("deploylocal: the example's event source mapping %s (%s): %w", id, m.uuid, err)
	}
	m.queueARN = aws.ToString(got.EventSourceArn)
	m.reports = slices.ContainsFunc(got.FunctionResponseTypes, func(t lambdatypes.FunctionResponseType) bool {
		return t == lambdatypes.FunctionResponseTypeReportBatchItemFailures
	})
	return m, nil
}

// confirmedLine is the example function's log line for an order it
// confirmed: its work, done once per order.
var confirmedLine = regexp.MustCompile(`order confirmed order=(\S+)`)

// runOrders runs the example's deployed bootstrap on the orders in q
// (sent before and during the deploy), then sends the orders still unsent
// (after it) and runs it until the queue is drained; then sends every
// order once more and runs it again, and records what came of it. The copies wait for the first round to drain:
// sent at once, a copy could meet its key in progress on the other
// instance and be held back, by design, until the claim's lease ends.
func runOrders(ctx context.Context, cfg Config, endpoint string, c clients, d *deployed, q *pipeline.Queue, work string, send func(int) error, res *ExampleResult) error {
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
	runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for round := range min(cfg.Copies, 2) {
		if round == 0 {
			for k := res.Before + res.During + res.After; k < res.Orders; k++ { // the orders not sent yet
				if err := send(k); err != nil {
					return err
				}
				res.After++
			}
		} else {
			orphanedPolls()
			for k := range res.Orders {
				if err := send(k); err != nil {
					return err
				}
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
