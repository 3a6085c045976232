"""The benchmark driver's parts: servers, load generator, scenarios, report."""
