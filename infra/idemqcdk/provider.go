package idemqcdk

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

// checkProviderURL checks the model provider's base URL as the reference
// worker reads it (IDEMQ_PROVIDER_URL): an absolute http or https URL with
// a host, and nothing the worker would mangle or the function's
// configuration should not hold: no user information (a password there
// would be deployed in plain text), no query and no fragment (the worker
// appends /v1/chat/completions to the path). An http URL to a host other
// than a loopback one deploys with a warning: the API key would cross the
// network in plain text. The messages name the setting by
// label("ProviderURL").
func checkProviderURL(raw string, label func(field string) string) (warning string, err error) {
	bad := func(why string) error {
		return &SettingError{Field: "ProviderURL", Msg: fmt.Sprintf(
			"%s %q is not a usable provider URL: %s; give the model provider's OpenAI-compatible base URL, like https://api.openai.com/v1",
			label("ProviderURL"), raw, why)}
	}
	u, perr := url.Parse(raw)
	switch {
	case strings.TrimSpace(raw) != raw:
		return "", bad("it has leading or trailing white space")
	case perr != nil:
		return "", bad("it does not parse as a URL")
	case u.Scheme != "https" && u.Scheme != "http":
		return "", bad("want an absolute http(s) URL")
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return "", bad("it has no host")
	case u.User != nil:
		return "", bad("it holds user information, which would be deployed in plain text in the function's configuration (put the API key in a Secrets Manager secret)")
	case u.RawQuery != "" || u.ForceQuery:
		return "", bad("it has a query, which the worker would not send")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "", bad("it has a fragment")
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		warning = fmt.Sprintf("%s %q is plain http to a host that is not a loopback one: the API key and every prompt cross the network in plain text; use https",
			label("ProviderURL"), raw)
	}
	return warning, nil
}

// loopback reports whether host is localhost or a loopback IP address.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isToken reports whether s holds a CDK token: a value known only when the
// stack is deployed, which synth cannot check.
func isToken(s string) bool {
	return *awscdk.Token_IsUnresolved(jsii.String(s))
}
