"""The Business Card Games by Doug Lynn: Rotator, Reflector, Deflector, Defector."""
