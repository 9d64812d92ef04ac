package main

import (
	"net/http"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
)

// envMaxConcurrency is set by Lambda on a function run by a capacity
// provider (Lambda Managed Instances): aws-lambda-go then runs that many
// invocations at once in this process, each a batch of its own.
const envMaxConcurrency = "AWS_LAMBDA_MAX_CONCURRENCY"

// maxConcurrency reads AWS_LAMBDA_MAX_CONCURRENCY through getenv the way
// aws-lambda-go v1.55.1 does (lambdacontext.MaxConcurrency): a whole number
// of at least 1, and 1 for anything else, unset included. The worker sizes
// its pools for what the runtime will really run, so it does not refuse
// what the runtime accepts.
func maxConcurrency(getenv func(string) string) int {
	n, err := strconv.Atoi(getenv(envMaxConcurrency))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// connections is how many requests to one backend (the store, the model
// provider, SQS, S3) can be under way at once: the batches at once (the
// invocations the runtime runs at once, or in consumer mode
// IDEMQ_CONSUMER_MAX_BATCHES, each of at most 10 messages) times the
// records each runs at once. Each pool keeps that many connections, so no
// record waits for another's.
func (c config) connections() int {
	records := handler.DefaultConcurrency
	if c.concurrency != 0 {
		records = c.concurrency
	}
	if c.consumer.queueURL != "" {
		batches := c.consumer.maxBatches
		if batches == 0 {
			batches = consumer.DefaultMaxBatches
		}
		// A receive returns at most 10 messages: a batch never runs more.
		return batches * min(records, 10)
	}
	return max(c.invocations, 1) * records
}

// keepConnections returns hc keeping up to n idle connections per host,
// and in all, when it is the SDK's own client (LoadDefaultConfig's);
// another client is returned as it is.
func keepConnections(hc aws.HTTPClient, n int) aws.HTTPClient {
	b, ok := hc.(*awshttp.BuildableClient)
	if !ok {
		return hc
	}
	return b.WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, n)
		if t.MaxIdleConns != 0 { // 0: no limit
			t.MaxIdleConns = max(t.MaxIdleConns, n)
		}
	})
}
