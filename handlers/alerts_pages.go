package handlers

// alertsPages are the browser routes of price alerts.
func (h *Handlers) alertsPages() []PageRoute {
	if h.alerts == nil {
		return nil
	}
	return nil
}
