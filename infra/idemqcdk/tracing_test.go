package idemqcdk_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
	"github.com/idemq/idemq/request"
)

// collectorLayer is an ADOT collector layer for arm64, as docs/tracing.md
// spells one.
const collectorLayer = "arn:aws:lambda:us-east-1:901920570463:layer:aws-otel-collector-arm64-ver-0-117-0:1"

// tracedFunction is what tracing changes on one function of the template.
type tracedFunction struct {
	tracing string // IDEMQ_TRACING; "": unset
	layers  []any  // Layers
	active  bool   // TracingConfig Mode Active
	mode    string // IDEMQ_MODE: "frontdoor" on the front door's
	role    string // the logical id of its role
}

// tracedFunctions are the template's functions, by logical id.
func tracedFunctions(tb testing.TB, tpl assertions.Template) map[string]tracedFunction {
	tb.Helper()
	out := map[string]tracedFunction{}
	for id, fn := range *tpl.FindResources(jsii.String("AWS::Lambda::Function"), nil) {
		var r struct {
			Properties struct {
				Environment   struct{ Variables map[string]any }
				Layers        []any
				TracingConfig struct{ Mode string }
				Role          map[string][]string
			}
		}
		if err := json.Unmarshal([]byte(jsonString(fn)), &r); err != nil {
			tb.Fatalf("function %s: %v", id, err)
		}
		p := r.Properties
		tracing, _ := p.Environment.Variables["IDEMQ_TRACING"].(string)
		mode, _ := p.Environment.Variables["IDEMQ_MODE"].(string)
		out[id] = tracedFunction{tracing: tracing, layers: p.Layers, active: p.TracingConfig.Mode == "Active", mode: mode, role: p.Role["Fn::GetAtt"][0]}
	}
	return out
}

// xrayStatements are the role statements allowing an xray: action.
func xrayStatements(tpl assertions.Template) []obj {
	var out []obj
	for _, s := range roleStatements(tpl) {
		for _, a := range list(s["Action"]) {
			if a, _ := a.(string); strings.HasPrefix(a, "xray:") {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// TestTracing checks idemq:tracing: off (cdk.json's), no layer, no
// IDEMQ_TRACING, no X-Ray grant and no active tracing; otel, the layer,
// IDEMQ_TRACING=otel and the collector's X-Ray grant, on every function
// (the front door's too), without active tracing; xray, the same with
// active tracing.
func TestTracing(t *testing.T) {
	xray := obj{"Effect": "Allow", "Action": arr{"xray:PutTraceSegments", "xray:PutTelemetryRecords"}, "Resource": "*"}
	t.Run("off", func(t *testing.T) {
		tpl := synth(t, map[string]any{"idemq:frontDoor": true})
		for id, fn := range tracedFunctions(t, tpl) {
			if fn.tracing != "" || fn.layers != nil || fn.active {
				t.Errorf("function %s: IDEMQ_TRACING %q, layers %v, active %v; want none of them", id, fn.tracing, fn.layers, fn.active)
			}
		}
		if got := xrayStatements(tpl); len(got) != 0 {
			t.Errorf("X-Ray statements %v with tracing off", got)
		}
	})
	for _, mode := range []string{"otel", "xray"} {
		t.Run(mode, func(t *testing.T) {
			tpl := synth(t, map[string]any{"idemq:tracing": mode, "idemq:tracingLayerArn": collectorLayer})
			fns := tracedFunctions(t, tpl)
			if len(fns) != 1 {
				t.Fatalf("%d functions, want 1", len(fns))
			}
			for id, fn := range fns {
				if fn.tracing != mode || len(fn.layers) != 1 || fn.layers[0] != collectorLayer || fn.active != (mode == "xray") {
					t.Errorf("function %s: IDEMQ_TRACING %q, layers %v, active %v; want %q, [%s], %v", id, fn.tracing, fn.layers, fn.active, mode, collectorLayer, mode == "xray")
				}
			}
			// Exactly the worker's grants and the collector's, once.
			wantGrants(t, tpl, resourceIDs(t, tpl), true, xray)
		})
	}
	t.Run("xray with the front door", func(t *testing.T) {
		tpl := synth(t, map[string]any{"idemq:tracing": "xray", "idemq:tracingLayerArn": collectorLayer, "idemq:frontDoor": true})
		fns := tracedFunctions(t, tpl)
		if len(fns) != 2 {
			t.Fatalf("%d functions, want 2", len(fns))
		}
		roles := map[string][]obj{}
		for id, fn := range fns {
			if fn.tracing != "xray" || len(fn.layers) != 1 || fn.layers[0] != collectorLayer || !fn.active {
				t.Errorf("function %s (mode %q): IDEMQ_TRACING %q, layers %v, active %v; want xray, [%s], true", id, fn.mode, fn.tracing, fn.layers, fn.active, collectorLayer)
			}
			roles[fn.role] = nil
		}
		// Each function's role may send to X-Ray, once.
		for _, p := range *tpl.FindResources(jsii.String("AWS::IAM::Policy"), nil) {
			var policy struct {
				Properties struct {
					Roles          []map[string]string
					PolicyDocument struct{ Statement []obj }
				}
			}
			if err := json.Unmarshal([]byte(jsonString(p)), &policy); err != nil || len(policy.Properties.Roles) != 1 {
				continue
			}
			role := policy.Properties.Roles[0]["Ref"]
			for _, s := range policy.Properties.PolicyDocument.Statement {
				for _, a := range list(s["Action"]) {
					if a, _ := a.(string); strings.HasPrefix(a, "xray:") {
						roles[role] = append(roles[role], s)
						break
					}
				}
			}
		}
		want := grantPairs([]obj{xray})
		for role, statements := range roles {
			if got := grantPairs(statements); !slices.Equal(got, want) {
				t.Errorf("role %s: X-Ray grants %v, want %v", role, got, want)
			}
		}
	})
}

// TestRejectedTracing checks that tracing without a usable collector
// layer, or with a value the worker does not take, fails the synth naming
// the key.
func TestRejectedTracing(t *testing.T) {
	amd64 := strings.Replace(collectorLayer, "arm64", "amd64", 1)
	wantRejected(t, []rejectedCase{
		{"otel without a layer", map[string]any{"idemq:tracing": "otel"}, "TracingLayerArn", "idemq:tracingLayerArn"},
		{"xray with an empty layer", map[string]any{"idemq:tracing": "xray", "idemq:tracingLayerArn": ""}, "TracingLayerArn", "idemq:tracingLayerArn"},
		{"a layer ARN without its version", map[string]any{"idemq:tracing": "otel", "idemq:tracingLayerArn": strings.TrimSuffix(collectorLayer, ":1")}, "TracingLayerArn", "idemq:tracingLayerArn"},
		{"a layer version 0", map[string]any{"idemq:tracing": "otel", "idemq:tracingLayerArn": strings.TrimSuffix(collectorLayer, "1") + "0"}, "TracingLayerArn", "idemq:tracingLayerArn"},
		{"a function's ARN as the layer", map[string]any{"idemq:tracing": "otel", "idemq:tracingLayerArn": "arn:aws:lambda:us-east-1:123456789012:function:collector"}, "TracingLayerArn", "idemq:tracingLayerArn"},
		{"a layer name alone", map[string]any{"idemq:tracing": "otel", "idemq:tracingLayerArn": "aws-otel-collector-arm64-ver-0-117-0"}, "TracingLayerArn", "idemq:tracingLayerArn"},
		{"the amd64 layer", map[string]any{"idemq:tracing": "xray", "idemq:tracingLayerArn": amd64}, "TracingLayerArn", "idemq:tracingLayerArn"},
		{"an x86_64 layer", map[string]any{"idemq:tracing": "otel", "idemq:tracingLayerArn": "arn:aws:lambda:eu-west-1:123456789012:layer:collector-x86_64:3"}, "TracingLayerArn", "idemq:tracingLayerArn"},
		{"a bad layer ARN with tracing off", map[string]any{"idemq:tracingLayerArn": "collector"}, "TracingLayerArn", "idemq:tracingLayerArn"},
		{"a mode the worker does not take", map[string]any{"idemq:tracing": "on", "idemq:tracingLayerArn": collectorLayer}, "Tracing", "idemq:tracing"},
		{"true, which was active tracing alone", map[string]any{"idemq:tracing": true, "idemq:tracingLayerArn": collectorLayer}, "Tracing", "idemq:tracing"},
		{"a number", map[string]any{"idemq:tracing": 1}, "Tracing", "idemq:tracing"},
	})
}

// TestTracingPropsCheck checks the construct's side: WorkerProps.Check
// names the fields, and accepts the layers that can work.
func TestTracingPropsCheck(t *testing.T) {
	for _, ok := range []idemqcdk.WorkerProps{
		{Request: request.Identity{Namespace: "jobs"}},
		{Request: request.Identity{Namespace: "jobs"}, Tracing: idemqcdk.TracingOff},
		{Request: request.Identity{Namespace: "jobs"}, Tracing: idemqcdk.TracingOTel, TracingLayerArn: collectorLayer},
		{Request: request.Identity{Namespace: "jobs"}, Tracing: idemqcdk.TracingXRay, TracingLayerArn: "arn:aws-cn:lambda:cn-north-1:123456789012:layer:my_collector:12"},
	} {
		if err := ok.Check(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	for field, bad := range map[string]idemqcdk.WorkerProps{
		"Tracing":         {Request: request.Identity{Namespace: "jobs"}, Tracing: "OTEL", TracingLayerArn: collectorLayer},
		"TracingLayerArn": {Request: request.Identity{Namespace: "jobs"}, Tracing: idemqcdk.TracingXRay},
	} {
		err := bad.Check()
		var se *idemqcdk.SettingError
		if !errors.As(err, &se) || se.Field != field || !strings.Contains(err.Error(), field+" ") {
			t.Errorf("%+v: got %v, want a *SettingError naming %s", bad, err, field)
		}
	}
}
