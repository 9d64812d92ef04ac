package idemqcdk

// Helpers on the values of props: a default for a zero value, and the
// value a pointer of aws-cdk-go's idiom points to.

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
