"""Request classification: which route serves a chat request, how sure, and why."""

from router.classify.classifier import Classifier
from router.classify.decision import RouteDecision, explicit_decision

__all__ = ["Classifier", "RouteDecision", "explicit_decision"]
