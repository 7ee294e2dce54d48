from django.core.management.base import BaseCommand

from outbox.dispatch import pending_count, redispatch_pending


class Command(BaseCommand):
    help = "Send again the Celery tasks stored while the broker was unreachable."

    def handle(self, *args, **options):
        sent = redispatch_pending()
        self.stdout.write(f"Sent {sent}; {pending_count()} still waiting.")
