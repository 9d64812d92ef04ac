package worker

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
)

// Mappings is the part of the Lambda client the start-up check of the
// function's event source mappings calls (ListEventSourceMappings).
// *lambda.Client satisfies it.
type Mappings interface {
	ListEventSourceMappings(ctx context.Context, in *lambda.ListEventSourceMappingsInput, optFns ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error)
}

var _ Mappings = (*lambda.Client)(nil)

// mappingCheckTimeout bounds the start-up check of the mappings: one cold
// start pays at most this much for it.
const mappingCheckTimeout = 2 * time.Second

// mappingPages is the most pages of mappings the check reads (100 each).
const mappingPages = 5

// checkMappings reads, once at start-up, the event source mappings to
// function, and logs an error for each one from an SQS queue that lacks
// ReportBatchItemFailures: Lambda then ignores the partial batch response
// and deletes the whole batch when the handler returns without an error,
// the messages it lists to come back (a key in progress on another worker,
// work that failed) with it. What it cannot read (no right to
// lambda:ListEventSourceMappings, no network, no answer in
// mappingCheckTimeout) it logs at INFO, and the worker starts all the
// same: the check never stops a worker. It returns the ARNs of the
// queues whose mapping lacks ReportBatchItemFailures, for the handler's
// Config.WholeBatchQueues: a batch from one of them with a record not
// acknowledged then fails whole, rather than lose that record's message.
func checkMappings(ctx context.Context, client Mappings, function string, logger *slog.Logger) (lacking []string) {
	ctx, cancel := context.WithTimeout(ctx, mappingCheckTimeout)
	defer cancel()
	in := &lambda.ListEventSourceMappingsInput{FunctionName: aws.String(function), MaxItems: aws.Int32(100)}
	var sqs []types.EventSourceMappingConfiguration
	for range mappingPages {
		out, err := client.ListEventSourceMappings(ctx, in, func(o *lambda.Options) { o.RetryMaxAttempts = 1 })
		if err != nil {
			logger.Info("idemq worker: could not read the function's event source mappings to check that each reports batch item failures "+
				"(grant lambda:ListEventSourceMappings on \"*\" to have it checked at start-up)", "function", function, "err", err.Error())
			return nil
		}
		for _, m := range out.EventSourceMappings {
			if strings.Contains(aws.ToString(m.EventSourceArn), ":sqs:") {
				sqs = append(sqs, m)
			}
		}
		if aws.ToString(out.NextMarker) == "" {
			break
		}
		in.Marker = out.NextMarker
	}
	if len(sqs) == 0 {
		logger.Debug("idemq worker: no event source mapping from an SQS queue to the function", "function", function)
		return nil
	}
	for _, m := range sqs {
		attrs := []any{"function", function, "mapping", aws.ToString(m.UUID), "queue", aws.ToString(m.EventSourceArn), "state", aws.ToString(m.State)}
		if slices.Contains(m.FunctionResponseTypes, types.FunctionResponseTypeReportBatchItemFailures) {
			logger.Debug("idemq worker: the event source mapping reports batch item failures", attrs...)
			continue
		}
		logger.Error("idemq worker: the event source mapping from the queue lacks ReportBatchItemFailures (FunctionResponseTypes): Lambda ignores "+
			"the handler's partial batch response, and deletes the whole batch when the handler returns, the messages it lists to come back "+
			"(in progress on another worker, failed) with it; until this instance ends, a batch from the queue with a record that comes back "+
			"fails whole (its settled records replay); add ReportBatchItemFailures to the mapping", attrs...)
		lacking = append(lacking, aws.ToString(m.EventSourceArn))
	}
	return lacking
}
