//go:build !unix

package host

func FreeBytes(string) (int64, error) { return 0, errNoStatfs }
