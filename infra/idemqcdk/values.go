package idemqcdk

import (
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

// Helpers on the values of props: a default for a zero value, the value a
// pointer of aws-cdk-go's idiom points to, and a duration as CDK's.

// or is v, or def when v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// deref is *p, or the zero value when p is nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// derefSlice is *p, or nil.
func derefSlice[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	return *p
}

// derefAll is the strings of p, or nil.
func derefAll(p *[]*string) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, s := range *p {
		out = append(out, deref(s))
	}
	return out
}

// seconds is d as a CDK duration; d is a whole number of seconds.
func seconds(d time.Duration) awscdk.Duration {
	return awscdk.Duration_Seconds(jsii.Number(d.Seconds()))
}
