package idemqcdk

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"
)

// MetricNamespace is the CloudWatch namespace of the handler's per-batch
// metrics (handler.WithEMF), given to the function as EnvEMFNamespace. The
// metrics' one dimension, "Service", is the key namespace
// (WorkerProps.Namespace), so the workers of an account share the
// namespace and keep their own metrics.
const MetricNamespace = "idemq"

// emfMetrics are the handler's counts the dashboard shows (see
// handler/metrics.go): every record is Executed, Replayed, InProgress,
// Failed or Skipped (or Keyless, off in the reference worker);
// BatchItemFailures is how many the batch response reported.
var emfMetrics = []string{"Records", "Executed", "Replayed", "InProgress", "Failed", "Skipped", "BatchItemFailures"}

// emfMetric is one of the handler's counts for the key namespace ns.
func emfMetric(name, ns string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String(MetricNamespace),
		MetricName:    jsii.String(name),
		DimensionsMap: &map[string]*string{"Service": jsii.String(ns)},
		Period:        opts.Period,
		Statistic:     opts.Statistic,
	})
}
