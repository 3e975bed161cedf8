"""Synthetic training scenes of Onze hands, rendered from installed card art."""
