package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/idemqenv"
)

// iamCallerKey is the context key of a request's IAM caller: the
// function URL's (or HTTP API's) authorizer, put there by
// functionURLRequest when the event carries one.
type iamCallerKey struct{}

// iamCaller is what Lambda says of a request's IAM caller.
type iamCaller = events.LambdaFunctionURLRequestContextAuthorizerIAMDescription

// withIAMCaller returns ctx carrying the event's IAM caller, if any.
func withIAMCaller(ctx context.Context, ev events.LambdaFunctionURLRequest) context.Context {
	if a := ev.RequestContext.Authorizer; a != nil && a.IAM != nil {
		return context.WithValue(ctx, iamCallerKey{}, *a.IAM)
	}
	return ctx
}

// iamCallerOf returns the IAM caller of a request served from an event;
// ok is false when the event carried none (AuthType NONE, a plain HTTP
// server).
func iamCallerOf(ctx context.Context) (caller iamCaller, ok bool) {
	caller, ok = ctx.Value(iamCallerKey{}).(iamCaller)
	return caller, ok
}

// iamScope is the front door's scope with IDEMQ_FRONTDOOR_SCOPE=iam: the
// IAM principal that signed the request (principalOf its userArn), whose
// keys are its own. A request without an IAM caller, or with an ARN that
// is not a principal's, is refused (frontdoor.ErrNoScope): the front door
// fails closed rather than put it in a key space shared with no one.
func iamScope(r *http.Request) (string, error) {
	caller, ok := iamCallerOf(r.Context())
	if !ok {
		return "", fmt.Errorf("%w: the request carries no IAM caller (is the function URL's AuthType AWS_IAM? else set IDEMQ_FRONTDOOR_SCOPE=%s)", frontdoor.ErrNoScope, idemqenv.ScopeNone)
	}
	return principalOf(caller.UserARN, false)
}

// iamSessionScope is the front door's scope with
// IDEMQ_FRONTDOOR_SCOPE=iam-session: as iamScope, but an assumed role's
// caller is its session (principalOf with the session name), so the
// users of one role, each under a session name of their own, do not
// share keys. A retry sent under another session name (renewed
// credentials named by time or at random) is another caller's request.
func iamSessionScope(r *http.Request) (string, error) {
	caller, ok := iamCallerOf(r.Context())
	if !ok {
		return "", fmt.Errorf("%w: the request carries no IAM caller (is the function URL's AuthType AWS_IAM? else set IDEMQ_FRONTDOOR_SCOPE=%s)", frontdoor.ErrNoScope, idemqenv.ScopeNone)
	}
	return principalOf(caller.UserARN, true)
}

// principalOf is the principal an IAM caller's ARN names: the ARN itself
// for a user, the account's root or a federated user, and for an assumed
// role's session (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION) the
// role, without the session name. The principal, not the session, is the
// caller: the session name changes with every new set of credentials
// (SDKs name it by time or at random; Lambda, ECS and EC2 by function,
// task or instance), and a retry sent after the credentials were renewed
// must find its key. So every session of a role shares its keys, as they
// share its permissions. The ARN, not the unique id (AROA…, AIDA…), for
// what an operator reads in a record's key; it includes the account. A
// role deleted and made again under the same name is the same scope.
// withSession keeps an assumed role's session name (iamSessionScope),
// and refuses an assumed role's ARN without one.
func principalOf(arn string, withSession bool) (string, error) {
	parts := strings.SplitN(arn, ":", 6) // arn:partition:service:region:account:resource
	if len(parts) != 6 || parts[0] != "arn" || parts[4] == "" || parts[5] == "" || (parts[2] != "iam" && parts[2] != "sts") {
		return "", fmt.Errorf("%w: the IAM caller's ARN %q names no principal", frontdoor.ErrNoScope, arn)
	}
	if role, ok := strings.CutPrefix(parts[5], "assumed-role/"); ok {
		name, session, _ := strings.Cut(role, "/")
		switch {
		case name == "":
			return "", fmt.Errorf("%w: the IAM caller's ARN %q names no role", frontdoor.ErrNoScope, arn)
		case withSession && session == "":
			return "", fmt.Errorf("%w: the IAM caller's ARN %q names no role session (IDEMQ_FRONTDOOR_SCOPE=%s)", frontdoor.ErrNoScope, arn, idemqenv.ScopeIAMSession)
		case withSession:
			return strings.Join(parts, ":"), nil
		}
		parts[5] = "assumed-role/" + name
	}
	return strings.Join(parts, ":"), nil
}
