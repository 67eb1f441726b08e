"""Shipped recipes: installed as package data (`doomagent._recipes`), listed by `doomagent recipes`."""
