package idemqcdk_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// identityStatements are the statements of every identity policy in the
// template: AWS::IAM::Policy and AWS::IAM::ManagedPolicy documents and
// roles' inline policies. (Resource policies, such as the queues' TLS-only
// Deny, are not grants.)
func identityStatements(tpl assertions.Template) []obj {
	return policyStatements(tpl, "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")
}

// roleStatements are the statements of the policies a role holds: the
// function's grants, without the redrive policy, which no role holds.
func roleStatements(tpl assertions.Template) []obj {
	return policyStatements(tpl, "AWS::IAM::Policy")
}

// policyStatements are the statements of the policies of the given types
// and of roles' inline policies.
func policyStatements(tpl assertions.Template, types ...string) []obj {
	var out []obj
	add := func(doc any) {
		d, _ := doc.(obj)
		switch st := d["Statement"].(type) {
		case arr:
			for _, s := range st {
				s, _ := s.(obj)
				out = append(out, s)
			}
		case obj:
			out = append(out, st)
		}
	}
	resources, _ := (*tpl.ToJSON())["Resources"].(obj)
	for _, r := range resources {
		r, _ := r.(obj)
		props, _ := r["Properties"].(obj)
		switch typ, _ := r["Type"].(string); {
		case slices.Contains(types, typ):
			add(props["PolicyDocument"])
		case typ == "AWS::IAM::Role":
			policies, _ := props["Policies"].(arr)
			for _, p := range policies {
				p, _ := p.(obj)
				add(p["PolicyDocument"])
			}
		}
	}
	return out
}

// list is a statement's Action or Resource as a list.
func list(v any) []any {
	if l, ok := v.(arr); ok {
		return l
	}
	if v == nil {
		return nil
	}
	return arr{v}
}

// jsonString is v as compact JSON.
func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// grantPairs are the "action on resource" pairs the statements allow, sorted.
// Pairs are compared rather than statements, so that how CDK groups actions
// into statements does not matter.
func grantPairs(statements []obj) []string {
	var pairs []string
	for _, s := range statements {
		for _, a := range list(s["Action"]) {
			for _, r := range list(s["Resource"]) {
				pairs = append(pairs, fmt.Sprintf("%s %v on %s", s["Effect"], a, jsonString(r)))
			}
		}
	}
	slices.Sort(pairs)
	return pairs
}

// wantGrants checks that the function's role is allowed exactly the item
// writes on the table, what polling needs on the queue (and
// ChangeMessageVisibility with back-off), writing to its log group,
// putting and getting the objects under the blob prefix when there is a
// bucket (no listing, no delete), and the extra statements.
func wantGrants(tb testing.TB, tpl assertions.Template, id ids, backoff bool, extra ...obj) {
	tb.Helper()
	want := extra
	grant := func(resource any, actions ...string) {
		a := make(arr, len(actions))
		for i, action := range actions {
			a[i] = action
		}
		want = append(want, obj{"Effect": "Allow", "Action": a, "Resource": resource})
	}
	table, queue, logs := getAtt(id.table, "Arn"), getAtt(id.queue, "Arn"), getAtt(id.logs, "Arn")
	grant(table, "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem")
	grant(queue, "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes")
	if backoff {
		grant(queue, "sqs:ChangeMessageVisibility")
	}
	grant(logs, "logs:CreateLogStream", "logs:PutLogEvents")
	grant("*", "lambda:ListEventSourceMappings")
	if id.bucket != "" {
		grant(blobObjects(id.bucket, id.blobPrefix), "s3:PutObject", "s3:GetObject")
	}
	got, expected := grantPairs(roleStatements(tpl)), grantPairs(want)
	if !slices.Equal(got, expected) {
		tb.Errorf("identity policies allow\n\t%s\nwant exactly\n\t%s", strings.Join(got, "\n\t"), strings.Join(expected, "\n\t"))
	}
}

// noWildcards checks that no identity policy allows a wildcard action or
// resource, uses NotAction or NotResource, and that the only role holds no
// managed policy, and the only managed policy (the redrive policy) is
// attached to nothing. (The log group's Arn attribute resolves to
// arn:…:log-group:NAME:*, which covers that group's log streams only.)
func noWildcards(tb testing.TB, tpl assertions.Template) {
	tb.Helper()
	statements := identityStatements(tpl)
	// The one wildcard allowed: the objects under the blob prefix, which
	// no narrower resource names.
	var blobs string
	if ids := *tpl.FindResources(jsii.String("AWS::S3::Bucket"), nil); len(ids) == 1 {
		for id := range ids {
			// Not with no prefix: that would be the whole bucket.
			if prefix := blobPrefixOf(tpl); prefix != "" {
				blobs = jsonString(blobObjects(id, prefix))
			}
		}
	}
	if len(statements) == 0 {
		tb.Errorf("no identity policy statements found")
	}
	for _, s := range statements {
		if s["Effect"] != "Allow" {
			tb.Errorf("statement %s: Effect %v, want Allow", jsonString(s), s["Effect"])
		}
		for _, key := range []string{"NotAction", "NotResource", "NotPrincipal"} {
			if _, ok := s[key]; ok {
				tb.Errorf("statement %s uses %s", jsonString(s), key)
			}
		}
		for _, a := range list(s["Action"]) {
			if strings.Contains(jsonString(a), "*") {
				tb.Errorf("statement %s allows wildcard action %v", jsonString(s), a)
			}
		}
		for _, r := range list(s["Resource"]) {
			// And the mappings' read, which takes no narrower resource.
			mappings := r == "*" && jsonString(s["Action"]) == `"lambda:ListEventSourceMappings"`
			if strings.Contains(jsonString(r), "*") && !mappings && (jsonString(r) != blobs || !slices.Equal(list(s["Action"]), arr{"s3:GetObject", "s3:PutObject"})) {
				tb.Errorf("statement %s allows wildcard resource %s", jsonString(s), jsonString(r))
			}
		}
	}
	check(tb, "one role, no managed policy on it, one managed policy on nothing", func() {
		tpl.ResourceCountIs(jsii.String("AWS::IAM::Role"), jsii.Number(1))
		tpl.HasResourceProperties(jsii.String("AWS::IAM::Role"), obj{"ManagedPolicyArns": assertions.Match_Absent()})
		tpl.ResourceCountIs(jsii.String("AWS::IAM::ManagedPolicy"), jsii.Number(1))
		tpl.HasResourceProperties(jsii.String("AWS::IAM::ManagedPolicy"), obj{
			"Roles": assertions.Match_Absent(), "Users": assertions.Match_Absent(), "Groups": assertions.Match_Absent(),
		})
	})
}

// secretActions are what the function may do on the provider's API key
// secret: the actions of CDK's GrantRead.
var secretActions = arr{"secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"}

// readSecret is the statement letting the function read the secret whose
// ARN, in a policy, is resource.
func readSecret(resource any) obj {
	return obj{"Effect": "Allow", "Action": secretActions, "Resource": resource}
}

// secretsManagerGrants are the identity statements naming a Secrets Manager
// action.
func secretsManagerGrants(tpl assertions.Template) []string {
	var out []string
	for _, p := range grantPairs(identityStatements(tpl)) {
		if strings.Contains(p, "secretsmanager:") {
			out = append(out, p)
		}
	}
	return out
}

// kmsStatements are the identity statements naming a KMS action.
func kmsStatements(tpl assertions.Template) []obj {
	var out []obj
	for _, s := range identityStatements(tpl) {
		if strings.Contains(jsonString(s["Action"]), `"kms:`) {
			out = append(out, s)
		}
	}
	return out
}

// secretsManagerIn is the kms:ViaService value of Secrets Manager in region:
// a region's name, or an expression such as ref("AWS::Region").
func secretsManagerIn(region any) any {
	if name, ok := region.(string); ok {
		return "secretsmanager." + name + ".amazonaws.com"
	}
	return obj{"Fn::Join": arr{"", arr{"secretsmanager.", region, ".amazonaws.com"}}}
}

// decryptSecret is the statement letting the function decrypt with the KMS
// key whose ARN, in a policy, is key, through Secrets Manager in region
// (see secretsManagerIn) only.
func decryptSecret(key, region any) obj {
	return obj{
		"Effect":    "Allow",
		"Action":    "kms:Decrypt",
		"Resource":  key,
		"Condition": obj{"StringEquals": obj{"kms:ViaService": secretsManagerIn(region)}},
	}
}

// wantKMS checks that the identity statements naming a KMS action are
// exactly want, conditions included (grantPairs leaves them out), Sids
// aside.
func wantKMS(tb testing.TB, tpl assertions.Template, want ...obj) {
	tb.Helper()
	text := func(statements []obj) []string {
		var out []string
		for _, s := range statements {
			s = maps.Clone(s)
			delete(s, "Sid")
			out = append(out, jsonString(s))
		}
		slices.Sort(out)
		return out
	}
	got, expected := text(kmsStatements(tpl)), text(want)
	if !slices.Equal(got, expected) {
		tb.Errorf("identity policies' KMS statements are\n\t%s\nwant exactly\n\t%s", strings.Join(got, "\n\t"), strings.Join(expected, "\n\t"))
	}
}
