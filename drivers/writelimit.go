package drivers

// OptionsWriteLimiter is a WriteLimiter whose limit depends on the
// backend's options: an adapter's program says at its hello how many
// sessions may write at once. why says where the number comes from, for
// plan's note on a scenario's writes.
type OptionsWriteLimiter interface {
	WritingConnectionsFor(options map[string]string) (n int, why string)
}

// WriteLimit is how many sessions may write at once on a backend of the
// driver d (a Driver, or what plan knows of one) with options (0: no
// limit), and where the number comes from ("" when it is the database's
// rule, which the driver's name says).
func WriteLimit(d any, options map[string]string) (int, string) {
	if wl, ok := d.(OptionsWriteLimiter); ok {
		return wl.WritingConnectionsFor(options)
	}
	if wl, ok := d.(WriteLimiter); ok {
		return wl.WritingConnections(), ""
	}
	return 0, ""
}
