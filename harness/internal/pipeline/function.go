package pipeline

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/idemq/idemq/harness/internal/loadtest"
)

// startFunction starts the variant's instances: emulators running the
// worker for idemq, in-process functions for the naive variants.
func (r *runner) startFunction(ctx context.Context) ([]loadtest.Invoker, error) {
	cfg := r.cfg
	if cfg.Variant != Idemq {
		r.naive = newNaive(cfg.Variant, cfg.Store.Latency, r.callTime)
		out := make([]loadtest.Invoker, cfg.Instances)
		for i := range out {
			out[i] = r.naive.invoker()
		}
		return out, nil
	}
	var err error
	if r.store, err = r.startStore(ctx); err != nil {
		return nil, err
	}
	r.byName = map[string]*Instance{}
	out := make([]loadtest.Invoker, cfg.Instances)
	for i := range out {
		name := "i" + strconv.Itoa(i)
		in, err := StartInstance(ctx, InstanceConfig{
			Name: name, RIE: r.parts.RIE, Bootstrap: r.parts.Bootstrap, Timeout: cfg.Timeout,
			Env: r.workerEnv(name),
		})
		if err != nil {
			return nil, err
		}
		r.cleanups = append(r.cleanups, in.Close)
		r.instances = append(r.instances, in)
		r.byName[name] = in
		out[i] = in
	}
	return out, nil
}

// workerEnv is the reference worker's environment: its own provider URL
// (so the provider knows who calls), the store through its fault proxy,
// dummy credentials, no call to AWS; with back-off, SQS through its proxy.
func (r *runner) workerEnv(name string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"AWS_LAMBDA_FUNCTION_NAME=idemq-worker",
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=idemqlocal",
		"AWS_SECRET_ACCESS_KEY=idemqlocal",
		"AWS_EC2_METADATA_DISABLED=true",
		// The start-up's read of the function's event source mappings:
		// refused at a closed port, logged, and the worker goes on.
		"AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:1",
		"IDEMQ_PROVIDER_URL=" + r.provider.URLFor(name),
		"IDEMQ_RECORD_EXPIRY=" + fmt.Sprint(24*3600) + "s",
		"IDEMQ_NAMESPACE=" + Namespace,
	}
	env = append(env, r.store.env...)
	env = append(env, r.blobEnv()...)
	if r.cfg.Lease > 0 {
		env = append(env, "IDEMQ_LEASE="+r.cfg.Lease.String())
	}
	if r.cfg.Heartbeat > 0 {
		env = append(env, "IDEMQ_HEARTBEAT="+r.cfg.Heartbeat.String())
	}
	if r.cfg.Variant == Consumer {
		return env // the consumer run adds its SQS endpoint (consumer.go)
	}
	if !r.cfg.Backoff {
		// The back-off is the worker's default: this run turns it off.
		return append(env, "IDEMQ_BACKOFF=false")
	}
	// The SQS server, through the proxy that counts the back-offs; the
	// queue's own URL (fauxqs knows a queue by its URL, not the one
	// derived from the ARN for AWS).
	return append(env, "IDEMQ_SQS_ENDPOINT="+r.sqsProxy.URL, "IDEMQ_QUEUE_URL="+r.queue.URL)
}
