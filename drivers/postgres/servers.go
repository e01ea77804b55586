package postgres

// ServerCommands implements drivers.ServerCommands: a local server's
// backends are processes named postgres, and the CPU they take during a
// point is the run's own work, not the machine's noise.
func (pgDriver) ServerCommands() []string { return []string{"postgres"} }
