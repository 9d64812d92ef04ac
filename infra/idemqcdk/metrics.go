package idemqcdk

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"
)

// metricNamespace is the CloudWatch namespace of the handler's per-batch
// metrics (handler.WithEMF), given to the function as envEMFNamespace. The
// metrics' one dimension, "Service", is the key namespace
// (WorkerProps.Request.Namespace), so the workers of an account share the
// namespace and keep their own metrics.
const metricNamespace = "idemq"

// emfMetrics are the handler's counts the dashboard's records by outcome
// shows (see handler/metrics.go): every record is Executed, Replayed,
// InProgress, Failed or Skipped (or Keyless, off in the reference worker);
// BatchItemFailures is how many the batch response reported.
var emfMetrics = []string{"Records", "Executed", "Replayed", "InProgress", "Failed", "Skipped", "BatchItemFailures"}

// emfClass is one class of the handler's counts and the dashboard's label
// for it.
type emfClass struct{ name, label string }

// emfClasses are the classes of the handler's counts that add up to its
// Records without counting a record twice (see handler/metrics.go:
// Executed is Fresh + TookOver, Replayed is StoredReplays + Copies +
// CacheHits), in the order the dashboard stacks them. Keyless, off in the
// reference worker, is left out.
var emfClasses = []emfClass{
	{"Fresh", "fresh executions"},
	{"TookOver", "take-overs (a passed lease or an expired record)"},
	{"StoredReplays", "replays of a stored result"},
	{"Copies", "copies (in a batch, or in flight in the process)"},
	{"CacheHits", "local cache hits"},
	{"InProgress", "in-progress retries"},
	{"Failed", "failed"},
	{"Skipped", "skipped"},
}

// emfAvoided is the handler's count of records answered without running
// the function: each a provider call the duplicate would have cost.
const emfAvoided = "ProviderCallsAvoided"

// emfMetric is one of the handler's counts for the key namespace ns, with
// opts' period, statistic and label.
func emfMetric(name, ns string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String(metricNamespace),
		MetricName:    jsii.String(name),
		DimensionsMap: &map[string]*string{"Service": jsii.String(ns)},
		Period:        opts.Period,
		Statistic:     opts.Statistic,
		Label:         opts.Label,
	})
}
