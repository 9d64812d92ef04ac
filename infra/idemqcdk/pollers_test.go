package idemqcdk_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
)

// Provisioned pollers: the event source mapping gets ProvisionedPollerConfig
// and no ScalingConfig (Lambda refuses the two together), and cdk.json's
// maximum concurrency must be turned off (0) to ask for them.
func TestProvisionedPollersTemplate(t *testing.T) {
	tpl := synth(t, map[string]any{"idemq:minPollers": 5, "idemq:maxPollers": "300", "idemq:maxConcurrency": 0})
	check(t, "mapping in provisioned mode", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj{
			"ProvisionedPollerConfig": obj{"MinimumPollers": 5, "MaximumPollers": 300},
			"ScalingConfig":           assertions.Match_Absent(),
			"FunctionResponseTypes":   arr{"ReportBatchItemFailures"},
		})
	})
	// One key alone takes AWS's default for the other.
	tpl = synth(t, map[string]any{"idemq:minPollers": 10, "idemq:maxConcurrency": 0})
	check(t, "maximum defaults to 200", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj{
			"ProvisionedPollerConfig": obj{"MinimumPollers": 10, "MaximumPollers": idemqcdk.DefaultMaxPollers},
		})
	})
	// Off by default: on-demand polling with cdk.json's cap.
	tpl = synth(t, nil)
	check(t, "on demand by default", func() {
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj{
			"ProvisionedPollerConfig": assertions.Match_Absent(),
			"ScalingConfig":           obj{"MaximumConcurrency": 10},
		})
	})
}

// The construct: Pollers with MaxConcurrency left at 0 is no cap.
func TestProvisionedPollersConstruct(t *testing.T) {
	p := idemqcdk.WorkerProps{Request: request.Identity{Namespace: "idemq"}, Pollers: &idemqcdk.Pollers{Minimum: 2, Maximum: 2000}}
	if err := p.Check(); err != nil {
		t.Errorf("pollers 2..2000 without MaxConcurrency: %v", err)
	}
	p.MaxConcurrency = 10
	var se *idemqcdk.SettingError
	if err := p.Check(); !errors.As(err, &se) || se.Field != "MaxConcurrency" || !strings.Contains(err.Error(), "Pollers.Maximum") {
		t.Errorf("pollers with MaxConcurrency 10: %v, want a *SettingError on MaxConcurrency", err)
	}
}

// rejectedCase is a context that must fail the synth with a *SettingError
// on field whose message names key.
type rejectedCase struct {
	name    string
	context map[string]any
	field   string
	key     string
}

func wantRejected(t *testing.T, cases []rejectedCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := synthRefused(t, c.context, c.field)
			if !strings.Contains(err.Error(), c.key) {
				t.Errorf("the message does not name %s: %v", c.key, err)
			}
			t.Log(err)
		})
	}
}

func TestRejectedPollers(t *testing.T) {
	wantRejected(t, []rejectedCase{
		{"pollers with cdk.json's maximum concurrency", map[string]any{"idemq:minPollers": 5}, "MaxConcurrency", "idemq:maxConcurrency"},
		{"pollers with a maximum concurrency", map[string]any{"idemq:maxPollers": 50, "idemq:maxConcurrency": 20}, "MaxConcurrency", "idemq:maxPollers"},
		{"minimum over maximum", map[string]any{"idemq:minPollers": 50, "idemq:maxPollers": 20, "idemq:maxConcurrency": 0}, "Pollers.Minimum", "idemq:maxPollers"},
		{"minimum of 1", map[string]any{"idemq:minPollers": 1, "idemq:maxConcurrency": 0}, "Pollers.Minimum", "idemq:minPollers"},
		{"minimum over 200", map[string]any{"idemq:minPollers": 201, "idemq:maxPollers": 2000, "idemq:maxConcurrency": 0}, "Pollers.Minimum", "idemq:minPollers"},
		{"maximum over 2000", map[string]any{"idemq:maxPollers": 2001, "idemq:maxConcurrency": 0}, "Pollers.Maximum", "idemq:maxPollers"},
		{"maximum not a number", map[string]any{"idemq:maxPollers": "lots", "idemq:maxConcurrency": 0}, "Pollers.Maximum", "idemq:maxPollers"},
	})
}
