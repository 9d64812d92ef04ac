package idemqcdk

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

// xrayActions are what the collector's X-Ray exporter calls. X-Ray takes no
// narrower resource than "*".
var xrayActions = []string{"xray:PutTraceSegments", "xray:PutTelemetryRecords"}

// layerVersionARN is a Lambda layer version's ARN, as Lambda's API takes
// it: arn:PARTITION:lambda:REGION:ACCOUNT:layer:NAME:VERSION, the name 1 to
// 140 letters, digits, hyphens and underscores, the version a number from 1.
var layerVersionARN = regexp.MustCompile(`^arn:` + arnPartition + `:lambda:` + arnRegion + `:` + arnAccount + `:layer:([A-Za-z0-9_-]{1,140}):[1-9][0-9]*$`)

// resolveTracing checks p's tracing settings into s; messages name each
// setting by label(field).
func (s *settings) resolveTracing(p *WorkerProps, label func(field string) string) error {
	switch p.Tracing {
	case "", TracingOff:
		s.tracing = TracingOff
	case TracingOTel, TracingXRay:
		s.tracing = p.Tracing
	default:
		return &SettingError{Field: "Tracing", Msg: fmt.Sprintf("%s %q: want %q, %q or %q", label("Tracing"), p.Tracing, TracingOff, TracingOTel, TracingXRay)}
	}
	arn := p.TracingLayerArn
	if arn == "" {
		if s.tracing == TracingOff {
			return nil
		}
		return &SettingError{Field: "TracingLayerArn", Msg: fmt.Sprintf(
			"%s is unset, and %s %q needs it: the ARN of the ADOT collector layer for %s in the stack's region, "+
				"arn:aws:lambda:REGION:901920570463:layer:aws-otel-collector-%s-ver-X-Y-Z:N (docs/tracing.md)",
			label("TracingLayerArn"), label("Tracing"), s.tracing, s.arch.name, s.arch.goarch)}
	}
	if isToken(arn) {
		s.layerArn = arn
		return nil
	}
	m := layerVersionARN.FindStringSubmatch(arn)
	if m == nil {
		return &SettingError{Field: "TracingLayerArn", Msg: fmt.Sprintf(
			"%s %q is not a Lambda layer version's ARN, arn:aws:lambda:REGION:ACCOUNT:layer:NAME:VERSION (the version too), "+
				"like arn:aws:lambda:REGION:901920570463:layer:aws-otel-collector-arm64-ver-X-Y-Z:N",
			label("TracingLayerArn"), arn)}
	}
	name := strings.ToLower(m[len(m)-1])
	// A layer's name may say its architecture, as ADOT's
	// aws-otel-collector-amd64-ver-0-117-0 does.
	for _, other := range s.arch.others {
		if strings.Contains(name, other) {
			return &SettingError{Field: "TracingLayerArn", Msg: fmt.Sprintf(
				"%s %q is a layer for %s, and the function runs on %s; use the %s layer (aws-otel-collector-%s-ver-...)",
				label("TracingLayerArn"), arn, other, s.arch.name, s.arch.goarch, s.arch.goarch)}
		}
	}
	s.layerArn = arn
	return nil
}

// activeTracing is the functions' Lambda tracing mode: active only with
// TracingXRay.
func (s settings) activeTracing() awslambda.Tracing {
	if s.tracing == TracingXRay {
		return awslambda.Tracing_ACTIVE
	}
	return awslambda.Tracing_DISABLED
}

// trace gives fn, with role, what s.tracing needs besides its active
// tracing (activeTracing, a property of the function's construction):
// envTracing, the collector layer, and the X-Ray grant the collector's
// exporter needs, xrayActions on "*". With TracingXRay CDK adds that grant
// itself, for active tracing, so it is added here only with TracingOTel
// (twice, the role would hold it in two statements). With tracing off it
// does nothing.
func (s settings) trace(fn awslambda.Function, role awsiam.Role) {
	if s.tracing == TracingOff {
		return
	}
	fn.AddEnvironment(jsii.String(envTracing), jsii.String(string(s.tracing)), nil)
	fn.AddLayers(awslambda.LayerVersion_FromLayerVersionArn(fn, jsii.String("TracingLayer"), jsii.String(s.layerArn)))
	if s.tracing == TracingXRay {
		return
	}
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("SendTraces"),
		Actions:   jsii.Strings(xrayActions...),
		Resources: jsii.Strings("*"),
	}))
}
