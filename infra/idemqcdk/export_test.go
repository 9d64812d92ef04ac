package idemqcdk

// Names the package's external tests read.
const (
	DLQRetention      = deadLetterRetention
	DefaultBlobPrefix = defaultBlobPrefix
	DefaultMaxPollers = defaultMaxPollers
	MetricNamespace   = metricNamespace
	WorkerPackage     = workerPackage
)
