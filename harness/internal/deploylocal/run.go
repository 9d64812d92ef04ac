package deploylocal

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/harness/internal/pipeline"
)

// Run deploys the stack to a local moto_server, checks it, runs the
// deployed worker on duplicated requests, and destroys the stack; then the
// same for the example app (ExampleDir) and its function (see the package
// documentation). A problem found in a deployment is an error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg.Keys, cfg.Copies, cfg.Instances = or(cfg.Keys, 8), or(cfg.Copies, 3), or(cfg.Instances, 2)
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	res := &Result{}
	step := func(name string, f func() error) error {
		start := time.Now()
		fmt.Fprintf(cfg.Log, "--- deploylocal: %s\n", name)
		err := f()
		res.Steps = append(res.Steps, Step{name, time.Since(start)})
		return err
	}
	work, err := os.MkdirTemp("", "idemq-deploylocal-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	asm := filepath.Join(work, "cdk.out")

	answer, err := largeAnswer()
	if err != nil {
		return nil, err
	}
	small := loadtest.NewProvider()
	defer small.Close()
	provider, err := newLargeProvider(small, answer)
	if err != nil {
		return nil, err
	}
	defer provider.Close()
	moto, err := StartMoto(ctx, cfg.Log)
	if err != nil {
		return nil, err
	}
	defer moto.Close()
	cdk, err := newCLI(cfg.CDK, cfg.Root, moto.Endpoint, cfg.Log)
	if err != nil {
		return nil, err
	}
	c := newClients(moto.Endpoint)

	var tpl *template
	if err := step("cdk synth --strict", func() error {
		if err := cdk.run(ctx, "synth", "--quiet", "--strict", "--output", asm, "--context", "idemq:providerUrl="+provider.URL()); err != nil {
			return err
		}
		if tpl, err = readTemplate(asm, StackName); err != nil {
			return err
		}
		return patchForMoto(asm, StackName)
	}); err != nil {
		return res, err
	}
	if err := step("cdk bootstrap", func() error {
		return cdk.run(ctx, "bootstrap", "--app", asm, "aws://"+Account+"/"+Region)
	}); err != nil {
		return res, err
	}
	if err := step("cdk deploy", func() error {
		return cdk.run(ctx, "deploy", "--app", asm, "--require-approval", "never", StackName)
	}); err != nil {
		return res, err
	}
	var d *deployed
	if err := step("check the deployment", func() error {
		var problems []string
		if d, problems, err = describe(ctx, c, tpl, referenceStack); err != nil {
			return err
		}
		if d != nil {
			problems = append(problems, d.checkBucket(ctx, moto.Endpoint, tpl)...)
		}
		if len(problems) > 0 {
			return fmt.Errorf("deploylocal: the deployment differs from the template:\n\t%s", strings.Join(problems, "\n\t"))
		}
		return nil
	}); err != nil {
		return res, err
	}
	if err := step("run the deployed bootstrap", func() error {
		return runWorker(ctx, cfg, moto.Endpoint, c, d, provider, answer, work, res)
	}); err != nil {
		return res, err
	}
	if err := step("cdk destroy", func() error {
		if err := cdk.run(ctx, "destroy", "--app", asm, "--force", StackName); err != nil {
			return err
		}
		return checkDestroyed(ctx, c, d, moto.Endpoint, referenceStack)
	}); err != nil {
		return res, err
	}
	return res, runExample(ctx, cfg, moto.Endpoint, cdk, c, work, res, step)
}

// runWorker runs the deployed bootstrap on cfg.Keys keys sent cfg.Copies
// times each, in two rounds (the first copies, drained, then the others),
// and records what came of it.
// With the result bucket, LargeKey, whose answer is large, is sent once
// as well, its result checked where the worker must have put it
// (checkLarge), and one more copy of it sent once the queue is drained: a
// late duplicate, which must be replayed from the bucket.
func runWorker(ctx context.Context, cfg Config, endpoint string, c clients, d *deployed, provider *largeProvider, answer, work string, res *Result) error {
	bootstrap, err := fetchAsset(ctx, endpoint, d.assetBucket, d.assetKey, d.arch, work)
	if err != nil {
		return err
	}
	if d.env["IDEMQ_PROVIDER_URL"] != provider.URL() {
		return fmt.Errorf("deploylocal: the function's provider is %q, want the local one %s", d.env["IDEMQ_PROVIDER_URL"], provider.URL())
	}
	// The deployed environment, with what Lambda adds and the AWS
	// endpoints moto's.
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"AWS_LAMBDA_FUNCTION_NAME=" + d.function, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=" + strconv.Itoa(d.memoryMB),
		"AWS_REGION=" + Region, "AWS_DEFAULT_REGION=" + Region,
		"AWS_ACCESS_KEY_ID=idemqlocal", "AWS_SECRET_ACCESS_KEY=idemqlocal", "AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_DYNAMODB=" + endpoint, "AWS_ENDPOINT_URL_SQS=" + endpoint, "AWS_ENDPOINT_URL_SECRETS_MANAGER=" + endpoint,
		"AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:1", // the start-up's read of the mappings: refused, logged
	}
	var s3log *s3Log
	if d.env["IDEMQ_BLOB_BUCKET"] != "" {
		// moto's S3, through a log of the worker's requests; path-style:
		// moto's host names no bucket.
		if s3log, err = newS3Log(endpoint); err != nil {
			return err
		}
		defer s3log.Close()
		env = append(env, "IDEMQ_S3_ENDPOINT="+s3log.Endpoint())
	}
	for k, v := range d.env {
		env = append(env, k+"="+v)
	}
	// moto's copy of the mapping receives each message as it is sent and
	// fails to invoke the function: the local one stands in for it.
	if _, err := c.lambda.UpdateEventSourceMapping(ctx, &lambda.UpdateEventSourceMappingInput{UUID: aws.String(d.mapping), Enabled: aws.Bool(false)}); err != nil {
		return fmt.Errorf("deploylocal: disable moto's event source mapping: %w", err)
	}
	sqsClient := pipeline.NewSQSClient(endpoint)
	queue, err := pipeline.OpenQueue(ctx, sqsClient, d.queueURL, d.dlqURL, false)
	if err != nil {
		return err
	}
	var instances []loadtest.Invoker
	for i := range cfg.Instances {
		in, err := pipeline.StartInstance(ctx, pipeline.InstanceConfig{
			Name: fmt.Sprintf("i%d", i), RIE: cfg.RIE, Bootstrap: bootstrap, Env: env, Timeout: d.timeout,
		})
		if err != nil {
			return err
		}
		defer func() {
			fmt.Fprintf(cfg.Log, "--- deploylocal: the output of function instance %d:\n%s\n", i, in.Logs())
			in.Close()
		}()
		instances = append(instances, in)
	}
	send := func(body string) error {
		if err := queue.Send(ctx, body); err != nil {
			return fmt.Errorf("deploylocal: send: %w", err)
		}
		res.Sent++
		return nil
	}
	sendKeys := func() error {
		for k := range cfg.Keys {
			if err := send(fmt.Sprintf(`{"idempotency_key":"deploy-local-%d","model":"local","prompt":"deploy-local prompt %d"}`, k, k)); err != nil {
				return err
			}
		}
		return nil
	}
	// Two rounds: each key (and LargeKey) once, drained; then the other
	// copies, which find their keys completed and replay them, on either
	// instance. Copies sent at once could meet their key in progress on
	// the other instance and be held back, by design, until the claim's
	// lease (the function's timeout plus a margin, over 2 minutes) ends:
	// the pipeline proves that case; here it would only cost minutes.
	runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for round := range min(cfg.Copies, 2) {
		if round == 0 {
			if s3log != nil {
				if err := send(largeBody()); err != nil {
					return err
				}
			}
			if err := sendKeys(); err != nil {
				return err
			}
		} else {
			orphanedPolls()
			for range cfg.Copies - 1 {
				if err := sendKeys(); err != nil {
					return err
				}
			}
		}
		esm := &loadtest.ESM{Source: queue, Instances: instances, BatchSize: d.batchSize, BatchingWindow: d.window, Timeout: d.timeout}
		stats, err := esm.Run(runCtx, nil)
		if err != nil {
			return fmt.Errorf("deploylocal: the event source mapping, round %d: %w", round+1, err)
		}
		res.Stats = addStats(res.Stats, stats)
	}
	if s3log != nil {
		if res.Large, err = checkLarge(ctx, c, endpoint, d, answer); err != nil {
			return err
		}
		before := len(s3log.Requests())
		orphanedPolls()
		if err := send(largeBody()); err != nil {
			return err
		}
		lateCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		defer cancel()
		late := &loadtest.ESM{Source: queue, Instances: instances, BatchSize: d.batchSize, BatchingWindow: d.window, Timeout: d.timeout}
		if res.Large.LateDuplicate, err = late.Run(lateCtx, nil); err != nil {
			return fmt.Errorf("deploylocal: the event source mapping, for the late duplicate: %w", err)
		}
		if err := res.Large.countReplayGets(s3log.Requests()[before:]); err != nil {
			return err
		}
		fmt.Fprintf(cfg.Log, "--- deploylocal: %s\n", res.Large)
	}
	res.Calls = provider.Calls()
	dead, err := queue.DeadLetters(ctx)
	if err != nil {
		return err
	}
	res.DeadLetters = len(dead)
	for _, m := range dead {
		fmt.Fprintf(cfg.Log, "dead letter: %s %v\n", m.Body, m.Attributes)
	}
	return nil
}

// or is v, or def when v is zero.
func or(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
