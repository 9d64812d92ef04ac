package idemqcdk

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

// Limits of provisioned mode on an SQS event source mapping
// (ProvisionedPollerConfig, as the Lambda API and CloudFormation document
// them for SQS): at least 2 pollers, a minimum of at most 200, a maximum of
// at most 2000.
const (
	minPollers        = 2
	maxMinimumPollers = 200
	maxMaximumPollers = 2000
	// defaultMinPollers and defaultMaxPollers are AWS's defaults for an
	// SQS event source in provisioned mode.
	defaultMinPollers = 2
	defaultMaxPollers = 200
)

// resolvePollers checks p's pollers against each other and against the
// maximum concurrency; nil without pollers.
func (p *WorkerProps) resolvePollers(label func(field string) string) (*pollerSettings, error) {
	if p.Pollers == nil {
		return nil, nil
	}
	s := &pollerSettings{min: or(p.Pollers.Minimum, defaultMinPollers), max: or(p.Pollers.Maximum, defaultMaxPollers)}
	bad := func(field, format string, args ...any) error {
		return &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case s.min < minPollers || s.min > maxMinimumPollers:
		return nil, bad("Pollers.Minimum", "%s %d must be from %d to %d (an SQS event source in provisioned mode)", label("Pollers.Minimum"), s.min, minPollers, maxMinimumPollers)
	case s.max < minPollers || s.max > maxMaximumPollers:
		return nil, bad("Pollers.Maximum", "%s %d must be from %d to %d (an SQS event source in provisioned mode)", label("Pollers.Maximum"), s.max, minPollers, maxMaximumPollers)
	case s.min > s.max:
		return nil, bad("Pollers.Minimum", "%s %d is over %s %d; lower it or raise the maximum", label("Pollers.Minimum"), s.min, label("Pollers.Maximum"), s.max)
	case p.MaxConcurrency != 0 && p.MaxConcurrency != NoMaxConcurrency:
		return nil, bad("MaxConcurrency", "%s %d cannot be combined with provisioned pollers (%s, %s): Lambda refuses a maximum concurrency in provisioned mode; "+
			"set %s to 0 (no cap) and bound the invocations with %s",
			label("MaxConcurrency"), p.MaxConcurrency, label("Pollers.Minimum"), label("Pollers.Maximum"), label("MaxConcurrency"), label("Pollers.Maximum"))
	}
	return s, nil
}

// pollerConfig is the event source's provisioned mode, nil without it.
func pollerConfig(s settings) *awslambda.ProvisionedPollerConfig {
	if s.pollers == nil {
		return nil
	}
	return &awslambda.ProvisionedPollerConfig{
		MinimumPollers: jsii.Number(s.pollers.min),
		MaximumPollers: jsii.Number(s.pollers.max),
	}
}
