package idemqenv

import (
	"errors"
	"fmt"
	"slices"

	"github.com/idemq/idemq/idem"
)

// SettingError reports err, a library's refusals of settings (each
// *idem.ConfigError it holds, one or joined), with each refusal named
// after the variable that sets it (Var.Sets): "IDEMQ_HEARTBEAT: idem:
// Heartbeat 4s: must be at most half of Lease 4s: ...". A refusal of a
// setting no variable sets, and any other error, is kept as it is; an err
// with nothing to name is returned itself. errors.Is and errors.As still
// see every error err holds.
func SettingError(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs := slices.Clone(joined.Unwrap())
		changed := false
		for i, e := range errs {
			if named := SettingError(e); named != e {
				errs[i], changed = named, true
			}
		}
		if changed {
			return errors.Join(errs...)
		}
		return err
	}
	bad, ok := errors.AsType[*idem.ConfigError](err)
	if !ok {
		return err
	}
	if name := settingVar(bad.Package + "." + bad.Field); name != "" {
		return fmt.Errorf("%s: %w", name, err)
	}
	return err
}

// settingVar is the variable that sets the library setting named, or "".
func settingVar(setting string) string {
	for _, v := range vars {
		if slices.Contains(v.Sets, setting) {
			return v.Name
		}
	}
	return ""
}
