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

// Pollers runs the SQS event source in provisioned mode: Lambda keeps at
// least Minimum event pollers reading the queue and scales up to Maximum,
// each handling about 5 MB/s, for steady high throughput and bursts
// without the on-demand ramp-up. Provisioned mode cannot be combined with a
// maximum concurrency (ScalingConfig.MaximumConcurrency): with Pollers set,
// WorkerProps.MaxConcurrency must be 0 or NoMaxConcurrency. More pollers
// mean more invocations at once, and more of them claiming the same hot
// keys: the claims decide, duplicates come back in progress (backed off)
// or replay.
type Pollers struct {
	// Minimum is the pollers kept running, 2 to 200. Defaults to
	// defaultMinPollers.
	Minimum int
	// Maximum is the most pollers Lambda scales up to, 2 to 2000, at
	// least Minimum. Defaults to defaultMaxPollers.
	Maximum int
}

// pollerSettings are Pollers with the defaults filled in.
type pollerSettings struct{ min, max int }

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

// pollers reads idemq:2 and idemq:maxPollers; either one turns
// provisioned mode on.
func (r *contextReader) pollers() *Pollers {
	if r.get(contextKeys["Pollers.Minimum"]) == nil && r.get(contextKeys["Pollers.Maximum"]) == nil {
		return nil
	}
	return &Pollers{Minimum: r.integer("Pollers.Minimum"), Maximum: r.integer("Pollers.Maximum")}
}
