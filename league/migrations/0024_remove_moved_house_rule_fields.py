# The house rules moved into game_rules (0023) leave the core's fields.

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('league', '0023_game_rules_from_fields'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='league',
            name='league_house_rules_in_range',
        ),
        migrations.RemoveConstraint(
            model_name='season',
            name='season_house_rules_in_range',
        ),
        migrations.RemoveField(
            model_name='league',
            name='kage_dropout',
        ),
        migrations.RemoveField(
            model_name='league',
            name='kage_fixed_points',
        ),
        migrations.RemoveField(
            model_name='league',
            name='kage_points',
        ),
        migrations.RemoveField(
            model_name='league',
            name='points_time_loss',
        ),
        migrations.RemoveField(
            model_name='league',
            name='points_time_win',
        ),
        migrations.RemoveField(
            model_name='league',
            name='time_limit_minutes',
        ),
        migrations.RemoveField(
            model_name='season',
            name='kage_dropout',
        ),
        migrations.RemoveField(
            model_name='season',
            name='kage_fixed_points',
        ),
        migrations.RemoveField(
            model_name='season',
            name='kage_points',
        ),
        migrations.RemoveField(
            model_name='season',
            name='points_time_loss',
        ),
        migrations.RemoveField(
            model_name='season',
            name='points_time_win',
        ),
        migrations.RemoveField(
            model_name='season',
            name='time_limit_minutes',
        ),
        migrations.AddConstraint(
            model_name='league',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(models.Q(('starting_koban__gte', 0), ('starting_koban__lte', 1000)), ('starting_koban__isnull', True), _connector='OR'), models.Q(models.Q(('revenue_win__gte', 0), ('revenue_win__lte', 100)), ('revenue_win__isnull', True), _connector='OR'), models.Q(models.Q(('revenue_draw__gte', 0), ('revenue_draw__lte', 100)), ('revenue_draw__isnull', True), _connector='OR'), models.Q(models.Q(('revenue_loss__gte', 0), ('revenue_loss__lte', 100)), ('revenue_loss__isnull', True), _connector='OR'), models.Q(models.Q(('points_win__gte', 0), ('points_win__lte', 20)), ('points_win__isnull', True), _connector='OR'), models.Q(models.Q(('points_draw__gte', 0), ('points_draw__lte', 20)), ('points_draw__isnull', True), _connector='OR'), models.Q(models.Q(('points_loss__gte', 0), ('points_loss__lte', 20)), ('points_loss__isnull', True), _connector='OR'), models.Q(models.Q(('max_bonus_koban__gte', 0), ('max_bonus_koban__lte', 20)), ('max_bonus_koban__isnull', True), _connector='OR'), models.Q(models.Q(('points_bye__gte', 0), ('points_bye__lte', 20)), ('points_bye__isnull', True), _connector='OR'), models.Q(models.Q(('points_forfeit_win__gte', 0), ('points_forfeit_win__lte', 20)), ('points_forfeit_win__isnull', True), _connector='OR'), models.Q(models.Q(('points_forfeit_loss__gte', 0), ('points_forfeit_loss__lte', 20)), ('points_forfeit_loss__isnull', True), _connector='OR'), models.Q(models.Q(('revenue_forfeit_win__gte', 0), ('revenue_forfeit_win__lte', 100)), ('revenue_forfeit_win__isnull', True), _connector='OR')), name='league_house_rules_in_range', violation_error_message='A house rule is out of its range.'),
        ),
        migrations.AddConstraint(
            model_name='season',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(models.Q(('starting_koban__gte', 0), ('starting_koban__lte', 1000)), ('starting_koban__isnull', True), _connector='OR'), models.Q(models.Q(('revenue_win__gte', 0), ('revenue_win__lte', 100)), ('revenue_win__isnull', True), _connector='OR'), models.Q(models.Q(('revenue_draw__gte', 0), ('revenue_draw__lte', 100)), ('revenue_draw__isnull', True), _connector='OR'), models.Q(models.Q(('revenue_loss__gte', 0), ('revenue_loss__lte', 100)), ('revenue_loss__isnull', True), _connector='OR'), models.Q(models.Q(('points_win__gte', 0), ('points_win__lte', 20)), ('points_win__isnull', True), _connector='OR'), models.Q(models.Q(('points_draw__gte', 0), ('points_draw__lte', 20)), ('points_draw__isnull', True), _connector='OR'), models.Q(models.Q(('points_loss__gte', 0), ('points_loss__lte', 20)), ('points_loss__isnull', True), _connector='OR'), models.Q(models.Q(('max_bonus_koban__gte', 0), ('max_bonus_koban__lte', 20)), ('max_bonus_koban__isnull', True), _connector='OR'), models.Q(models.Q(('points_bye__gte', 0), ('points_bye__lte', 20)), ('points_bye__isnull', True), _connector='OR'), models.Q(models.Q(('points_forfeit_win__gte', 0), ('points_forfeit_win__lte', 20)), ('points_forfeit_win__isnull', True), _connector='OR'), models.Q(models.Q(('points_forfeit_loss__gte', 0), ('points_forfeit_loss__lte', 20)), ('points_forfeit_loss__isnull', True), _connector='OR'), models.Q(models.Q(('revenue_forfeit_win__gte', 0), ('revenue_forfeit_win__lte', 100)), ('revenue_forfeit_win__isnull', True), _connector='OR')), name='season_house_rules_in_range', violation_error_message='A house rule is out of its range.'),
        ),
    ]
