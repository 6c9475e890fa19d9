"""A learner and the offers they are enrolled in."""

from django.db import models


class Learner(models.Model):
    ref = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    email = models.EmailField()
    is_active = models.BooleanField(default=True)
    # Both null and "" occur in real data (imports from older systems); the form keeps them apart.
    department = models.CharField(max_length=100, null=True, blank=True)
    # How many times the record was saved after it was made: tests tell from it that a change
    # was applied exactly once. Not editable, so no form takes it.
    revision = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["id"]

    def save(self, *args, **kwargs):
        if self.pk is not None:
            self.revision += 1
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = list(kwargs["update_fields"]) + ["revision"]
        super().save(*args, **kwargs)


class Enrollment(models.Model):
    class Status(models.TextChoices):
        ENROLLED = "ENROLLED", "Enrolled"
        COMPLETED = "COMPLETED", "Completed"
        CANCELLED = "CANCELLED", "Cancelled"

    learner = models.ForeignKey(Learner, related_name="enrollments", on_delete=models.CASCADE)
    offer_name = models.CharField(max_length=200)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ENROLLED)

    class Meta:
        ordering = ["id"]
