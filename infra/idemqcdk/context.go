package idemqcdk

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/request"
)

// contextPrefix starts every context key NewStack reads.
const contextPrefix = "idemq:"

// contextKeys maps each WorkerProps field NewStack sets to its context key;
// those of Request ("Request.KeyFields") are request.Fields' own
// (contextKey).
// (ProviderAPIKeySecret's key holds the secret's name or complete ARN, which
// NewStack imports, with the KMS key of ctxProviderAPIKeySecretKMSKey if
// set.)
var contextKeys = map[string]string{
	"Architecture":         "idemq:architecture",
	"Timeout":              "idemq:functionTimeout",
	"MemoryMB":             "idemq:memoryMB",
	"Retention":            "idemq:retention",
	"VisibilityTimeout":    "idemq:visibilityTimeout",
	"MaxReceives":          "idemq:maxReceives",
	"FIFO":                 "idemq:fifo",
	"BatchSize":            "idemq:batchSize",
	"BatchingWindow":       "idemq:batchingWindow",
	"MaxConcurrency":       "idemq:maxConcurrency",
	"RecordExpiry":         "idemq:recordExpiry",
	"DisableBackoff":       "idemq:backoff",
	"Tracing":              "idemq:tracing",
	"TracingLayerArn":      "idemq:tracingLayerArn",
	"DisableBlobs":         "idemq:blobs",
	"BlobExpiryDays":       "idemq:blobExpiryDays",
	"BlobPrefix":           "idemq:blobPrefix",
	"ProviderAPIKeySecret": "idemq:providerApiKeySecret",
	"ProviderURL":          "idemq:providerUrl",
	"FrontDoor":            "idemq:frontDoor",
	"FrontDoorPublic":      "idemq:frontDoorPublic",
	"FrontDoorScope":       "idemq:frontDoorScope",
	// pollers.go, capacity.go
	"Pollers.Minimum":                   "idemq:minPollers",
	"Pollers.Maximum":                   "idemq:maxPollers",
	"CapacityProvider.SubnetIDs":        "idemq:capacitySubnetIds",
	"CapacityProvider.SecurityGroupIDs": "idemq:capacitySecurityGroupIds",
	"CapacityProvider.MaxConcurrency":   "idemq:capacityMaxConcurrency",
	"CapacityProvider.MemoryGiBPerVCpu": "idemq:capacityMemoryGiBPerVCpu",
}

// The context keys NewStack reads that are not WorkerProps fields.
const (
	// ctxBootstrapDir names a directory holding a bootstrap built
	// elsewhere, deployed instead of building ./lambda.
	ctxBootstrapDir = "idemq:bootstrapDir"
	// ctxAlarmTopicArn is the ARN of an SNS topic the dead-letter alarm
	// notifies.
	ctxAlarmTopicArn = "idemq:alarmTopicArn"
	// ctxProviderAPIKeySecretKMSKey is the ARN of the customer-managed KMS
	// key encrypting the provider's API key secret, which the function may
	// then decrypt with.
	ctxProviderAPIKeySecretKMSKey = "idemq:providerApiKeySecretKmsKey"
)

// contextLabel names a setting by its context key.
func contextLabel(field string) string {
	if key := contextKey(field); key != "" {
		return key
	}
	return field
}

// fieldNamed returns the request.Field that sets the Identity's field
// name ("KeyFields"), and false when no Field carries it outside code.
func fieldNamed(name string) (request.Field, bool) {
	for _, f := range request.Fields() {
		if f.Name == name {
			return f, true
		}
	}
	return request.Field{}, false
}

// contextKey is the context key of a WorkerProps field, "" for none: a
// field of Request has its request.Field's.
func contextKey(field string) string {
	if name, ok := strings.CutPrefix(field, "Request."); ok {
		if f, ok := fieldNamed(name); ok {
			return f.Context
		}
	}
	return contextKeys[field]
}

// stackContext is what NewStack reads from the context.
type stackContext struct {
	props         WorkerProps
	bootstrapDir  string
	apiKeySecret  string // "": none
	apiKeyKMSKey  string // "": none (the secret uses aws/secretsmanager)
	alarmTopicArn string // "": none
}

// readContext reads the idemq:* keys of node's context. A key it does not
// know, or a value of the wrong type, is a *SettingError naming the key.
func readContext(node constructs.Node) (stackContext, error) {
	var c stackContext
	all, _ := node.GetAllContext(nil).(map[string]any)
	known := slices.Collect(maps.Values(contextKeys))
	known = append(known, ctxBootstrapDir, ctxAlarmTopicArn, ctxProviderAPIKeySecretKMSKey)
	for _, f := range request.Fields() {
		known = append(known, f.Context)
	}
	for _, key := range slices.Sorted(maps.Keys(all)) {
		if strings.HasPrefix(key, contextPrefix) && !slices.Contains(known, key) {
			slices.Sort(known)
			return c, &SettingError{Msg: fmt.Sprintf("unknown context key %s; the idemq keys are %s", key, strings.Join(known, ", "))}
		}
	}
	r := contextReader{node: node}
	p := &c.props
	p.Architecture = r.architecture()
	p.Timeout = r.duration("Timeout")
	p.MemoryMB = r.integer("MemoryMB")
	p.Retention = r.duration("Retention")
	p.VisibilityTimeout = r.duration("VisibilityTimeout")
	p.MaxReceives = r.integer("MaxReceives")
	p.FIFO = r.boolean("FIFO")
	p.BatchSize = r.integer("BatchSize")
	p.BatchingWindow = r.duration("BatchingWindow")
	// 0 here says "no cap", as absent does (WorkerProps' 0).
	switch p.MaxConcurrency = r.integer("MaxConcurrency"); {
	case p.MaxConcurrency < 0:
		r.fail("MaxConcurrency", contextKeys["MaxConcurrency"], r.get(contextKeys["MaxConcurrency"]), "a whole number from 2 to 1000, or 0 for no cap")
	case p.MaxConcurrency == 0 && r.get(contextKeys["MaxConcurrency"]) != nil:
		p.MaxConcurrency = NoMaxConcurrency
	}
	p.RecordExpiry = r.duration("RecordExpiry")
	p.Request = r.request()
	p.DisableBackoff = !r.booleanOr("DisableBackoff", true)
	p.Tracing = r.tracing()
	p.TracingLayerArn = r.str("TracingLayerArn", contextKeys["TracingLayerArn"])
	p.DisableBlobs = !r.booleanOr("DisableBlobs", true)
	// 0 or "" here are values given, refused; absent, the defaults.
	if p.BlobExpiryDays = r.integer("BlobExpiryDays"); p.BlobExpiryDays == 0 && r.get(contextKeys["BlobExpiryDays"]) != nil {
		r.fail("BlobExpiryDays", contextKeys["BlobExpiryDays"], r.get(contextKeys["BlobExpiryDays"]),
			"a whole number of days of at least 1 (unset: the record expiry rounded up to whole days, plus one)")
	}
	if p.BlobPrefix = r.str("BlobPrefix", contextKeys["BlobPrefix"]); p.BlobPrefix == "" && r.get(contextKeys["BlobPrefix"]) != nil && r.err == nil {
		r.err = checkBlobPrefix("", contextLabel)
	}
	p.ProviderURL = r.str("ProviderURL", contextKeys["ProviderURL"])
	p.FrontDoor = r.boolean("FrontDoor")
	p.FrontDoorPublic = r.boolean("FrontDoorPublic")
	p.FrontDoorScope = r.str("FrontDoorScope", contextKeys["FrontDoorScope"])
	p.Pollers = r.pollers()
	p.CapacityProvider = r.capacityProvider()
	c.bootstrapDir = r.str("", ctxBootstrapDir)
	c.apiKeySecret = r.str("ProviderAPIKeySecret", contextKeys["ProviderAPIKeySecret"])
	c.apiKeyKMSKey = r.str("", ctxProviderAPIKeySecretKMSKey)
	c.alarmTopicArn = r.str("", ctxAlarmTopicArn)
	return c, r.err
}

// contextReader reads typed context values, keeping the first error.
type contextReader struct {
	node constructs.Node
	err  error
}

// get is the value of key, or nil if it is absent.
func (r *contextReader) get(key string) any {
	if r.err != nil {
		return nil
	}
	return r.node.TryGetContext(jsii.String(key))
}

func (r *contextReader) fail(field, key string, v any, want string) {
	r.err = &SettingError{Field: field, Msg: fmt.Sprintf("%s is %s; want %s", key, jsonValue(v), want)}
}

// jsonValue describes a context value as cdk.json spells it.
func jsonValue(v any) string {
	switch v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	default:
		return fmt.Sprintf("%v", v)
	}
}

// duration reads a Go duration string such as "96h" or "30s".
func (r *contextReader) duration(field string) time.Duration {
	key := contextKeys[field]
	switch v := r.get(key).(type) {
	case nil:
		return 0
	case string:
		if v == "" {
			return 0
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			r.fail(field, key, v, `a Go duration such as "96h", "15m" or "30s"`)
		}
		return d
	default:
		r.fail(field, key, v, `a Go duration string such as "96h", "15m" or "30s"`)
		return 0
	}
}

// integer reads a JSON number or a decimal string (as -c gives).
func (r *contextReader) integer(field string) int {
	key := contextKeys[field]
	switch v := r.get(key).(type) {
	case nil:
		return 0
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 {
			r.fail(field, key, v, "a whole number")
		}
		return int(v)
	case string:
		n, err := strconv.Atoi(v)
		if err != nil {
			r.fail(field, key, v, "a whole number")
		}
		return n
	default:
		r.fail(field, key, v, "a whole number")
		return 0
	}
}

// boolean reads a JSON boolean or "true"/"false"; absent is false.
func (r *contextReader) boolean(field string) bool {
	return r.booleanOr(field, false)
}

// booleanOr reads a JSON boolean or "true"/"false"; absent is def.
func (r *contextReader) booleanOr(field string, def bool) bool {
	key := contextKeys[field]
	switch v := r.get(key).(type) {
	case nil:
		return def
	case bool:
		return v
	case string:
		b, err := strconv.ParseBool(v)
		if err != nil {
			r.fail(field, key, v, "true or false")
		}
		return b
	default:
		r.fail(field, key, v, "true or false")
		return false
	}
}

// str reads a string.
func (r *contextReader) str(field, key string) string {
	switch v := r.get(key).(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		r.fail(field, key, v, "a string")
		return ""
	}
}

// request reads who a request is: each of request.Fields from its context
// key, a List as list reads it.
func (r *contextReader) request() request.Identity {
	var id request.Identity
	for _, f := range request.Fields() {
		field := "Request." + f.Name
		var values []string
		switch {
		case f.List:
			values = r.listAt(field, f.Context)
		case r.str(field, f.Context) != "":
			values = []string{r.str(field, f.Context)}
		}
		if len(values) == 0 || r.err != nil {
			continue
		}
		if err := f.Set(&id, values); err != nil {
			r.fail(field, f.Context, r.get(f.Context), strings.TrimPrefix(err.Error(), "want "))
		}
	}
	return id
}

// list reads a JSON array of strings, or a comma-separated string (as -c
// gives): "subnet-a,subnet-b".
func (r *contextReader) list(field string) []string {
	return r.listAt(field, contextKeys[field])
}

// listAt is list of the context key key.
func (r *contextReader) listAt(field, key string) []string {
	var out []string
	switch v := r.get(key).(type) {
	case nil:
	case string:
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				r.fail(field, key, v, "a list of strings, or a comma-separated string")
				return nil
			}
			out = append(out, s)
		}
	default:
		r.fail(field, key, v, "a list of strings, or a comma-separated string")
	}
	return out
}

// architecture reads idemq:architecture: "arm64" or "x86_64", Lambda's
// names; absent, nil (arm64).
func (r *contextReader) architecture() awslambda.Architecture {
	key := contextKeys["Architecture"]
	switch v := r.get(key).(type) {
	case nil:
		return nil
	case string:
		if a, ok := architectures[v]; ok {
			return a.lambdaArchitecture()
		}
	}
	r.fail("Architecture", key, r.get(key), `"arm64" or "x86_64"`)
	return nil
}

// tracing reads idemq:tracing: "off", "otel" or "xray" (resolveTracing
// checks which), or false, which cdk.json files before those values
// spelt "off" with. true is refused: it meant active tracing alone, with
// no spans of the worker's, which no value gives now.
func (r *contextReader) tracing() Tracing {
	key := contextKeys["Tracing"]
	switch v := r.get(key).(type) {
	case nil:
		return ""
	case string:
		return Tracing(v)
	case bool:
		if v {
			r.fail("Tracing", key, v, fmt.Sprintf(`%q (the worker's spans through the collector layer %s), or %q (the same, and Lambda's active tracing, which true turned on)`,
				TracingOTel, contextKeys["TracingLayerArn"], TracingXRay))
		}
		return TracingOff
	default:
		r.fail("Tracing", key, v, fmt.Sprintf("%q, %q or %q", TracingOff, TracingOTel, TracingXRay))
		return ""
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

// capacityProvider reads the idemq:capacity* keys; any of them turns the
// capacity provider on (and the checks then ask for the rest).
func (r *contextReader) capacityProvider() *CapacityProvider {
	set := false
	for _, f := range []string{"CapacityProvider.SubnetIDs", "CapacityProvider.SecurityGroupIDs", "CapacityProvider.MaxConcurrency", "CapacityProvider.MemoryGiBPerVCpu"} {
		set = set || r.get(contextKeys[f]) != nil
	}
	if !set {
		return nil
	}
	return &CapacityProvider{
		SubnetIDs:        r.list("CapacityProvider.SubnetIDs"),
		SecurityGroupIDs: r.list("CapacityProvider.SecurityGroupIDs"),
		MaxConcurrency:   r.integer("CapacityProvider.MaxConcurrency"),
		MemoryGiBPerVCpu: r.integer("CapacityProvider.MemoryGiBPerVCpu"),
	}
}
